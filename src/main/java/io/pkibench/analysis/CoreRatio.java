package io.pkibench.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where one more core stops paying, over a sweep of splits of cores between a client (the generic
 * work: building, canonicalising and digesting the message) and its key servers (the cryptographic
 * work): the pix seed's "1 generic : 2 cryptographic" made testable.
 *
 * <p>Rules: between two measured splits that differ by one core on one side, the gain is (X_to −
 * X_from) / X_from and its spread the two splits' standard deviations added, over X_from. The core
 * pays when gain − spread ≥ {@link #PAYING_GAIN}; it stops paying when gain + spread < {@code
 * PAYING_GAIN}; otherwise the verdict is inconclusive (the spread is larger than the gain's
 * distance from the threshold). The ratio is the split with the fewest cores from which one more
 * core on either side stops paying: there neither side waits for the other.
 */
public record CoreRatio(List<Gain> gains, Split balancedAt, String text) {

  /** The least gain for one more core to be worth it: 10%. */
  public static final double PAYING_GAIN = 0.10;

  public CoreRatio {
    gains = List.copyOf(gains);
  }

  /**
   * One measured split: the client's cores, the key servers' cores, the throughput over its
   * measured iterations and their standard deviation ({@link Double#POSITIVE_INFINITY} when
   * unknown: a single iteration).
   */
  public record Split(
      int clientCores, int serviceCores, double opsPerSecond, double stdevOpsPerSecond) {
    public Split {
      if (clientCores < 1 || serviceCores < 1)
        throw new IllegalArgumentException(
            "a split gives each side at least one core, not " + clientCores + ":" + serviceCores);
      if (!(opsPerSecond >= 0) || !(stdevOpsPerSecond >= 0))
        throw new IllegalArgumentException(
            "split " + clientCores + ":" + serviceCores + ": throughput and spread are at least 0");
    }

    /** {@code CLIENT:SERVICE}, as the flag writes it. */
    public String cores() {
      return clientCores + ":" + serviceCores;
    }

    boolean sameCores(int client, int service) {
      return clientCores == client && serviceCores == service;
    }
  }

  /** Which side got the one more core. */
  public enum Side {
    CLIENT("client"),
    SERVICE("service");

    final String word;

    Side(String word) {
      this.word = word;
    }
  }

  public enum Verdict {
    PAYS,
    STOPS_PAYING,
    INCONCLUSIVE
  }

  /** One more core on {@code side}, from split {@code from} to {@code to}. */
  public record Gain(
      Side side,
      Split from,
      Split to,
      double gainFraction,
      double spreadFraction,
      Verdict verdict) {
    String describe() {
      return from.cores()
          + " → "
          + to.cores()
          + " "
          + (Double.isNaN(gainFraction) ? "?" : signedPercent(gainFraction))
          + " ± "
          + (Double.isInfinite(spreadFraction) ? "?" : percent(Math.abs(spreadFraction)))
          + (verdict == Verdict.INCONCLUSIVE ? " (inconclusive)" : "");
    }
  }

  /** The gains between every two splits one core apart, the ratio if one shows, and the answer. */
  public static CoreRatio of(List<Split> splits) {
    for (int i = 0; i < splits.size(); i++)
      for (int j = i + 1; j < splits.size(); j++)
        if (splits.get(i).sameCores(splits.get(j).clientCores, splits.get(j).serviceCores))
          throw new IllegalArgumentException(
              "split " + splits.get(i).cores() + " is measured twice");
    if (splits.size() < 2) {
      return new CoreRatio(
          List.of(),
          null,
          (splits.isEmpty() ? "no split was measured" : "one split (" + splits.get(0).cores() + ")")
              + " cannot show a ratio: give splits one core apart on either side, e.g. 1:1,2:1,1:2,2:2");
    }
    List<Split> sorted =
        splits.stream()
            .sorted(
                Comparator.comparingInt((Split s) -> s.clientCores + s.serviceCores)
                    .thenComparingInt(Split::clientCores))
            .toList();
    List<Gain> gains = new ArrayList<>();
    for (Split from : sorted) {
      find(sorted, from.clientCores + 1, from.serviceCores)
          .ifPresent(to -> gains.add(gain(Side.CLIENT, from, to)));
      find(sorted, from.clientCores, from.serviceCores + 1)
          .ifPresent(to -> gains.add(gain(Side.SERVICE, from, to)));
    }
    if (gains.isEmpty()) {
      return new CoreRatio(
          gains,
          null,
          "no two splits are one core apart on one side, so no gain can be read: add e.g. "
              + sorted.get(0).clientCores
              + ":"
              + (sorted.get(0).serviceCores + 1)
              + " and "
              + (sorted.get(0).clientCores + 1)
              + ":"
              + sorted.get(0).serviceCores);
    }
    Split balanced = null;
    for (Split s : sorted) {
      Optional<Gain> client = gainFrom(gains, s, Side.CLIENT);
      Optional<Gain> service = gainFrom(gains, s, Side.SERVICE);
      if (client.isPresent()
          && service.isPresent()
          && client.get().verdict() == Verdict.STOPS_PAYING
          && service.get().verdict() == Verdict.STOPS_PAYING) {
        balanced = s;
        break;
      }
    }
    return new CoreRatio(gains, balanced, text(gains, balanced));
  }

  private static Optional<Split> find(List<Split> splits, int client, int service) {
    return splits.stream().filter(s -> s.sameCores(client, service)).findFirst();
  }

  private static Optional<Gain> gainFrom(List<Gain> gains, Split from, Side side) {
    return gains.stream().filter(g -> g.from() == from && g.side() == side).findFirst();
  }

  private static Gain gain(Side side, Split from, Split to) {
    if (from.opsPerSecond == 0)
      return new Gain(side, from, to, Double.NaN, Double.POSITIVE_INFINITY, Verdict.INCONCLUSIVE);
    double gain = (to.opsPerSecond - from.opsPerSecond) / from.opsPerSecond;
    double spread = (from.stdevOpsPerSecond + to.stdevOpsPerSecond) / from.opsPerSecond;
    Verdict verdict =
        gain - spread >= PAYING_GAIN
            ? Verdict.PAYS
            : gain + spread < PAYING_GAIN ? Verdict.STOPS_PAYING : Verdict.INCONCLUSIVE;
    return new Gain(side, from, to, gain, spread, verdict);
  }

  private static String text(List<Gain> gains, Split balanced) {
    String rule =
        " (one more core pays when it gains "
            + percent(PAYING_GAIN)
            + " or more beyond the two splits' standard deviations)";
    String measured =
        "; measured: " + String.join(", ", gains.stream().map(Gain::describe).toList());
    if (balanced != null) {
      int d = gcd(balanced.clientCores, balanced.serviceCores);
      return "the sides balance at "
          + balanced.clientCores / d
          + " client : "
          + balanced.serviceCores / d
          + " service cores: from "
          + balanced.cores()
          + " one more core on either side gains under "
          + percent(PAYING_GAIN)
          + rule
          + measured;
    }
    if (gains.stream().allMatch(g -> g.verdict() == Verdict.INCONCLUSIVE)) {
      return "too noisy to tell: every gain's spread is larger than its distance from "
          + percent(PAYING_GAIN)
          + "; measure longer (--duration) or on a quieter machine"
          + measured;
    }
    List<String> parts = new ArrayList<>();
    String client = side(gains, Side.CLIENT);
    String service = side(gains, Side.SERVICE);
    if (client != null) parts.add(client);
    if (service != null) parts.add(service);
    boolean clientStops = any(gains, Side.CLIENT, Verdict.STOPS_PAYING);
    boolean servicePays = any(gains, Side.SERVICE, Verdict.PAYS);
    boolean serviceStops = any(gains, Side.SERVICE, Verdict.STOPS_PAYING);
    boolean clientPays = any(gains, Side.CLIENT, Verdict.PAYS);
    String conclusion;
    if (clientStops && servicePays && !serviceStops)
      conclusion =
          "the service side saturates first: the client waits for the key servers; the ratio lies at more service cores per client core than measured";
    else if (serviceStops && clientPays && !clientStops)
      conclusion =
          "the client side saturates first: the key servers wait for the client; the ratio lies at more client cores per service core than measured";
    else
      conclusion =
          "no split was measured with both of its next splits (one more client core, one more service core) past it; add them";
    return "no ratio shows yet: " + String.join("; ", parts) + "; " + conclusion + rule + measured;
  }

  /** What one side's gains say, or null when it has none. */
  private static String side(List<Gain> gains, Side side) {
    List<Gain> of = gains.stream().filter(g -> g.side() == side).toList();
    if (of.isEmpty()) return null;
    Optional<Gain> stops = of.stream().filter(g -> g.verdict() == Verdict.STOPS_PAYING).findFirst();
    if (stops.isPresent())
      return "one more " + side.word + " core stops paying from " + stops.get().from().cores();
    if (of.stream().anyMatch(g -> g.verdict() == Verdict.PAYS))
      return "one more " + side.word + " core still pays at every split measured";
    return "one more " + side.word + " core: inconclusive";
  }

  private static boolean any(List<Gain> gains, Side side, Verdict verdict) {
    return gains.stream().anyMatch(g -> g.side() == side && g.verdict() == verdict);
  }

  private static int gcd(int a, int b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * fraction);
  }

  private static String signedPercent(double fraction) {
    return String.format(Locale.ROOT, "%+.0f%%", 100 * fraction);
  }
}
