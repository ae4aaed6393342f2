package io.pkibench.study;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.workload.acme.AcmeWorkloads;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many ECDSA signatures an ACME step's client half-makes before each series ({@code -p
 * presigned}): enough for the series' longest time (every warm-up iteration it may run, then the
 * measured ones) at {@link #ORDERS_PER_SECOND}, seven an order. A series that outruns it signs the
 * rest whole (slower per order, counted in its result); one that needs fewer wastes a second or so
 * before it starts, outside what is measured.
 */
final class CaPresigned {
  private CaPresigned() {}

  /** Above what Pebble 2.4 issues on one core here (about 350 a second). */
  static final int ORDERS_PER_SECOND = 400;

  static final int SIGNATURES_PER_ORDER = 7;

  /**
   * {@code spec} with {@code -p presigned} sized for a series of {@code warmup} then {@code
   * measure}.
   */
  static WorkloadSpec sized(WorkloadSpec spec, Iterations warmup, Iterations measure) {
    if (!spec.name().startsWith("acme:")) return spec;
    double seconds =
        warmup.upTo() * warmup.each().toMillis() / 1e3
            + measure.count() * measure.each().toMillis() / 1e3;
    long signatures =
        Math.min(
            AcmeWorkloads.MOST_PRESIGNED,
            (long) Math.ceil(seconds * ORDERS_PER_SECOND * SIGNATURES_PER_ORDER));
    Map<String, String> params = new LinkedHashMap<>(spec.params());
    params.put("presigned", Long.toString(signatures));
    return new WorkloadSpec(spec.name(), params, spec.keys(), spec.mix());
  }
}
