package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.formats.pec.TestProviders;
import io.pkibench.keys.KeySource;
import io.pkibench.plan.Plan;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pec study's signing and verification paths check the provider's documents, one message in
 * {@link PecStudy#PATH_VERIFY_SAMPLE} (their CPU is what they measure): with the measured
 * provider's key flipping a bit of every signature it makes, every sampled message is counted
 * failed; with the test PKI's keys every sampled one is verified. Seen failing before the study's
 * path plans checked (nothing failed, nothing verified).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PecPathsVerifyTest {
  /** Two samples: the first operation and the 101st. */
  static final int OPERATIONS = PecStudy.PATH_VERIFY_SAMPLE + 1;

  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static Plan plan(String label) throws Exception {
    var study = new PecStudy(PecStudy.Config.defaults(dir.resolve("pec"), null));
    var options = new StudyOptions(true, Duration.ofSeconds(1), "software", dir, null);
    try (RunningServices services =
        RunningServices.plan(study.services(options), List.of("java"), Map.of(), line -> {})) {
      return study.steps(options, services).stream()
          .filter(s -> s.label().equals(label))
          .findFirst()
          .orElseThrow()
          .plan();
    }
  }

  static StepOperations.Counts run(Plan plan, KeySource keys) throws Exception {
    return StepOperations.run(plan, keys, () -> fixture.pki, OPERATIONS).counts();
  }

  @Test
  void paths_providerSigningWrongly_sampledMessagesFailed_honestOnesVerified() throws Exception {
    // The measured provider of each path: the sending one signs, the receiving one answers with
    // signed receipts
    for (String[] path :
        List.of(
            new String[] {PecStudy.SIGN, TestProviders.SENDER_KEY},
            new String[] {PecStudy.VERIFY, TestProviders.RECIPIENT_KEY})) {
      String label = path[0];
      Plan plan = plan(label);
      assertEquals(
          new StepOperations.Counts(OPERATIONS, 2, 0),
          run(plan, fixture.keys),
          label + ": two sampled, verified");
      assertEquals(
          new StepOperations.Counts(OPERATIONS - 2, 0, 2),
          run(plan, FaultyKeys.flippingOutputsOf(fixture.keys, path[1])),
          label + ": a provider whose signatures are wrong: the sampled messages failed");
    }
  }
}
