package io.pkibench.bench;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.tls.HandshakeWorkload;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The peer of {@code pkibench run tls-handshake}: the identical SSLEngine loop (built by the same
 * workload, one per thread, the same keys) timed by JMH, so that bench/handshake can put the two
 * side by side. The test PKI directory comes from -Dpkibench.pki; the client's key is in memory.
 */
@BenchmarkMode(Mode.Throughput)
@State(Scope.Thread)
public class HandshakeBenchmark {
  @Param({"TLSv1.2"})
  public String protocol;

  @Param({"true"})
  public String mutual;

  private Workload workload;
  private Operation operation;

  @Setup(Level.Trial)
  public void setUp(ThreadParams thread) throws Exception {
    TestPki pki =
        TestPki.openOrInit(
            Path.of(System.getProperty("pkibench.pki")), InstantSource.system(), line -> {});
    HandshakeWorkload.Factory factory = new HandshakeWorkload.Factory();
    workload =
        factory.create(
            new WorkloadContext(
                new SoftwareKeySource(() -> pki, ProviderChoice.best()), false, () -> pki),
            Params.resolve(
                factory.name(), factory.params(), Map.of("protocol", protocol, "mutual", mutual)));
    operation = workload.newOperation(thread.getThreadIndex());
  }

  @Benchmark
  public void handshake() throws Exception {
    operation.execute();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    workload.close();
  }
}
