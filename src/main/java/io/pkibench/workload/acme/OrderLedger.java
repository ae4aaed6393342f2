package io.pkibench.workload.acme;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every order a CA accepted and what became of it: issued and downloaded once, or failed with its
 * reason. After a run, {@link #problems()} names an order left without either, one downloaded
 * twice, and a serial number given to two certificates: the run's reliability, as the PEC study
 * accounts for its messages.
 */
public final class OrderLedger {
  private final Map<String, String> outcomes = new ConcurrentHashMap<>();
  private final Map<BigInteger, String> serials = new ConcurrentHashMap<>();
  private final List<String> problems = new ArrayList<>();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong issued = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Map<String, Long> reasons = new ConcurrentHashMap<>();

  private static final String PENDING = "";
  static final String ISSUED = "issued";

  /** The CA accepted {@code order} (its URL): from now on it must end issued or failed. */
  public void accepted(String order) {
    accepted.incrementAndGet();
    if (outcomes.putIfAbsent(order, PENDING) != null)
      problem("order " + order + " accepted twice (the CA gave one URL to two new orders)");
  }

  /**
   * {@code order}'s certificate, serial {@code serial}, was downloaded; false when that serial was
   * already another certificate's (the CA issued a serial twice), which is recorded as a problem.
   */
  public boolean issued(String order, BigInteger serial) {
    String before = outcomes.put(order, ISSUED);
    if (before == null) problem("order " + order + " issued but never accepted");
    else if (!before.equals(PENDING))
      problem("order " + order + " ended twice (" + label(before) + ", then issued)");
    issued.incrementAndGet();
    String other = serials.putIfAbsent(serial, order);
    if (other != null) {
      problem("serial " + serial.toString(16) + " issued twice: orders " + other + " and " + order);
      return false;
    }
    return true;
  }

  /** {@code order} failed, {@code reason} said in a few words. */
  public void failed(String order, String reason) {
    String before = outcomes.put(order, "failed: " + reason);
    if (before != null && !before.equals(PENDING))
      problem(
          "order " + order + " ended twice (" + label(before) + ", then failed: " + reason + ")");
    failed.incrementAndGet();
    reasons.merge(reason, 1L, Long::sum);
  }

  private static String label(String outcome) {
    return outcome.isEmpty() ? "pending" : outcome;
  }

  private synchronized void problem(String text) {
    if (problems.size() < 20) problems.add(text);
  }

  /** Every problem found so far and every order neither issued nor failed, in words. */
  public synchronized List<String> problems() {
    List<String> all = new ArrayList<>(problems);
    long open = outcomes.values().stream().filter(PENDING::equals).count();
    if (open > 0) all.add(open + " accepted order(s) neither issued nor failed");
    return all;
  }

  /** The counts, for the result: accepted, issued, failed, unaccounted, by reason. */
  public Map<String, Long> counts() {
    Map<String, Long> counts = new TreeMap<>();
    counts.put("orders accepted", accepted.get());
    counts.put("orders issued", issued.get());
    counts.put("orders failed", failed.get());
    counts.put("orders unaccounted", outcomes.values().stream().filter(PENDING::equals).count());
    counts.put("serials issued twice", (long) (issued.get() - serials.size()));
    reasons.forEach((r, n) -> counts.put("failed: " + r, n));
    return counts;
  }
}
