package io.pkibench.workload;

import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import java.util.function.Supplier;

/**
 * What a workload may use: where keys live, whether each operation checks its own output, and the
 * test PKI (trust anchors, CRLs) for workloads that validate certificates.
 */
public record WorkloadContext(KeySource keys, boolean verify, Supplier<TestPki> pki) {

  /** For workloads that need no test PKI beyond their keys. */
  public WorkloadContext(KeySource keys, boolean verify) {
    this(keys, verify, () -> {
      throw new IllegalStateException("this run has no test PKI to validate against");
    });
  }
}
