package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.CoreRatio.Side;
import io.pkibench.analysis.CoreRatio.Split;
import io.pkibench.analysis.CoreRatio.Verdict;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The core-ratio answer on synthetic sweeps: each split's throughput is the slower side's capacity,
 * min(client cores × client rate, service cores × service rate), with a stated spread.
 */
class CoreRatioTest {

  /** Every {@code CLIENT:SERVICE} in {@code cores}, its throughput from the two rates. */
  static List<Split> grid(
      double clientOpsPerCore, double serviceOpsPerCore, double stdevFraction, String... cores) {
    List<Split> splits = new ArrayList<>();
    for (String c : cores) {
      int client = Integer.parseInt(c.split(":")[0]);
      int service = Integer.parseInt(c.split(":")[1]);
      double x = Math.min(client * clientOpsPerCore, service * serviceOpsPerCore);
      splits.add(new Split(client, service, x, x * stdevFraction));
    }
    return splits;
  }

  static Verdict verdict(CoreRatio r, Side side, String from) {
    return r.gains().stream()
        .filter(g -> g.side() == side && g.from().cores().equals(from))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + side + " gain from " + from + ": " + r))
        .verdict();
  }

  @Test
  void seedsOneGenericToTwoCryptographic_balancesAtOneToTwo() {
    // A client core does 1000 ops/s of generic work, a service core 500 of cryptographic work.
    CoreRatio r = CoreRatio.of(grid(1000, 500, 0.01, "1:1", "2:1", "1:2", "2:2", "1:3"));
    assertEquals("1:2", r.balancedAt().cores());
    assertEquals(Verdict.STOPS_PAYING, verdict(r, Side.CLIENT, "1:1"));
    assertEquals(Verdict.PAYS, verdict(r, Side.SERVICE, "1:1"));
    assertEquals(Verdict.STOPS_PAYING, verdict(r, Side.CLIENT, "1:2"));
    assertEquals(Verdict.STOPS_PAYING, verdict(r, Side.SERVICE, "1:2"));
    assertTrue(
        r.text().startsWith("the sides balance at 1 client : 2 service cores: from 1:2"), r.text());
    assertTrue(r.text().contains("1:1 → 1:2 +100% ± 3%"), r.text());
  }

  @Test
  void balancedAtTwoToFour_isStatedInLowestTerms() {
    CoreRatio r = CoreRatio.of(grid(1000, 500, 0.01, "2:3", "2:4", "3:4", "2:5"));
    assertEquals("2:4", r.balancedAt().cores());
    assertTrue(r.text().startsWith("the sides balance at 1 client : 2 service cores"), r.text());
  }

  @Test
  void serviceSideSaturatesFirst_clientCoresStopPayingWhileServiceCoresPay() {
    // Each service core 300 ops/s against 1000 per client core: the key servers are the bottleneck.
    CoreRatio r = CoreRatio.of(grid(1000, 300, 0.01, "1:1", "2:1", "1:2", "2:2"));
    assertNull(r.balancedAt());
    assertEquals(Verdict.STOPS_PAYING, verdict(r, Side.CLIENT, "1:1"));
    assertEquals(Verdict.STOPS_PAYING, verdict(r, Side.CLIENT, "1:2"));
    assertEquals(Verdict.PAYS, verdict(r, Side.SERVICE, "1:1"));
    assertEquals(Verdict.PAYS, verdict(r, Side.SERVICE, "2:1"));
    assertTrue(r.text().contains("one more client core stops paying from 1:1"), r.text());
    assertTrue(r.text().contains("the service side saturates first"), r.text());
  }

  @Test
  void clientSideSaturatesFirst_serviceCoresStopPayingWhileClientCoresPay() {
    CoreRatio r = CoreRatio.of(grid(300, 1000, 0.01, "1:1", "2:1", "1:2", "2:2"));
    assertNull(r.balancedAt());
    assertEquals(Verdict.PAYS, verdict(r, Side.CLIENT, "1:1"));
    assertEquals(Verdict.STOPS_PAYING, verdict(r, Side.SERVICE, "1:1"));
    assertEquals(Verdict.STOPS_PAYING, verdict(r, Side.SERVICE, "2:1"));
    assertTrue(r.text().contains("one more service core stops paying from 1:1"), r.text());
    assertTrue(r.text().contains("the client side saturates first"), r.text());
  }

  @Test
  void tooNoisy_everyGainInconclusive_andNoRatio() {
    // The seed's grid again, each split's standard deviation 40% of its throughput.
    CoreRatio r = CoreRatio.of(grid(1000, 500, 0.40, "1:1", "2:1", "1:2", "2:2", "1:3"));
    assertNull(r.balancedAt());
    assertTrue(
        r.gains().stream().allMatch(g -> g.verdict() == Verdict.INCONCLUSIVE),
        r.gains().toString());
    assertTrue(r.text().startsWith("too noisy to tell"), r.text());
  }

  @Test
  void gainJustOverTheThreshold_paysOnlyWhenTheSpreadIsSmallerThanItsMargin() {
    Split from = new Split(1, 1, 1000, 5);
    // +12%: 2% over the threshold. Spread 1% (5 + 5 over 1000): pays; spread 5%: inconclusive.
    assertEquals(
        Verdict.PAYS,
        verdict(CoreRatio.of(List.of(from, new Split(1, 2, 1120, 5))), Side.SERVICE, "1:1"));
    assertEquals(
        Verdict.INCONCLUSIVE,
        verdict(
            CoreRatio.of(List.of(new Split(1, 1, 1000, 25), new Split(1, 2, 1120, 25))),
            Side.SERVICE,
            "1:1"));
    // +8% with a spread of 1% stays under 10%: stops paying.
    assertEquals(
        Verdict.STOPS_PAYING,
        verdict(CoreRatio.of(List.of(from, new Split(2, 1, 1080, 5))), Side.CLIENT, "1:1"));
  }

  @Test
  void oneIterationEach_spreadUnknown_isInconclusive() {
    CoreRatio r =
        CoreRatio.of(
            List.of(
                new Split(1, 1, 1000, Double.POSITIVE_INFINITY),
                new Split(1, 2, 2000, Double.POSITIVE_INFINITY)));
    assertEquals(Verdict.INCONCLUSIVE, verdict(r, Side.SERVICE, "1:1"));
    assertTrue(r.text().contains("1:1 → 1:2 +100% ± ?"), r.text());
  }

  @Test
  void oneSplit_cannotShowARatio() {
    CoreRatio r = CoreRatio.of(List.of(new Split(1, 1, 1000, 10)));
    assertTrue(r.gains().isEmpty());
    assertNull(r.balancedAt());
    assertTrue(r.text().startsWith("one split (1:1) cannot show a ratio"), r.text());
  }

  @Test
  void splitsNoneOneCoreApart_sayWhichToAdd() {
    CoreRatio r = CoreRatio.of(List.of(new Split(1, 1, 1000, 10), new Split(2, 2, 2000, 10)));
    assertTrue(r.gains().isEmpty());
    assertTrue(r.text().contains("add e.g. 1:2 and 2:1"), r.text());
  }

  @Test
  void theSameSplitTwice_isRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CoreRatio.of(List.of(new Split(1, 2, 1000, 10), new Split(1, 2, 900, 10))));
    assertTrue(e.getMessage().contains("1:2 is measured twice"), e.getMessage());
  }
}
