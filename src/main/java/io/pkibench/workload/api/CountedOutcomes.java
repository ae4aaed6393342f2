package io.pkibench.workload.api;

import java.util.Map;

/**
 * A workload whose operations end in one of a few answers worth counting apart from success and
 * failure (an OCSP responder's good, revoked or unknown): the counts so far, warm-ups included,
 * kept in the result beside the levels. Read once the workload's series has ended.
 */
public interface CountedOutcomes {
  Map<String, Long> outcomes();
}
