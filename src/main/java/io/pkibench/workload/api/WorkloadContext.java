package io.pkibench.workload.api;

import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import java.time.InstantSource;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a workload may use: where keys live, whether each operation checks its own output, the test
 * PKI (trust anchors, CRLs) for workloads that validate certificates, and the clock that dates what
 * they sign, and the environment the run was started with (where a secret named by a parameter,
 * such as {@code -p client-key-password-env=VAR}, is read: never a password on the command line).
 * {@code verifyEvery}: under {@code verify}, a workload whose operations are {@link
 * CheckedOperation}s checks one answer in that many ({@code --verify-sample}, 1: every one).
 */
public record WorkloadContext(
    KeySource keys,
    boolean verify,
    Supplier<TestPki> pki,
    InstantSource clock,
    Map<String, String> env,
    int verifyEvery) {
  public WorkloadContext {
    env = env == null ? Map.of() : Map.copyOf(env);
    if (verifyEvery < 1)
      throw new IllegalArgumentException("--verify-sample: " + verifyEvery + " is below 1");
  }

  /** Checking every answer under {@code verify}. */
  public WorkloadContext(
      KeySource keys,
      boolean verify,
      Supplier<TestPki> pki,
      InstantSource clock,
      Map<String, String> env) {
    this(keys, verify, pki, clock, env, 1);
  }

  /** Worker {@code worker}'s choice of which operations check their answer. */
  public VerifySample verifySample(int worker) {
    return new VerifySample(verifyEvery, worker);
  }

  /** With no environment: a parameter that names an environment variable finds it unset. */
  public WorkloadContext(
      KeySource keys, boolean verify, Supplier<TestPki> pki, InstantSource clock) {
    this(keys, verify, pki, clock, Map.of());
  }

  /** With the system clock (tests and tools that run outside a session). */
  public WorkloadContext(KeySource keys, boolean verify, Supplier<TestPki> pki) {
    this(keys, verify, pki, InstantSource.system());
  }

  /** For workloads that need no test PKI beyond their keys. */
  public WorkloadContext(KeySource keys, boolean verify) {
    this(
        keys,
        verify,
        () -> {
          throw new IllegalStateException("this run has no test PKI to validate against");
        });
  }
}
