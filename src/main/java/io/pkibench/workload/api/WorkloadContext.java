package io.pkibench.workload.api;

import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import java.util.function.Supplier;

/**
 * What a workload may use: where keys live, whether each operation checks its own output, the test
 * PKI (trust anchors, CRLs) for workloads that validate certificates, and the clock that dates what
 * they sign.
 */
public record WorkloadContext(KeySource keys, boolean verify, Supplier<TestPki> pki, java.time.InstantSource clock) {

  /** With the system clock (tests and tools that run outside a session). */
  public WorkloadContext(KeySource keys, boolean verify, Supplier<TestPki> pki) {
    this(keys, verify, pki, java.time.InstantSource.system());
  }

  /** For workloads that need no test PKI beyond their keys. */
  public WorkloadContext(KeySource keys, boolean verify) {
    this(keys, verify, () -> {
      throw new IllegalStateException("this run has no test PKI to validate against");
    });
  }
}
