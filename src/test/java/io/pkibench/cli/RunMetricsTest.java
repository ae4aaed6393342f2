package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.MetricsExport;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --metrics}: bad receivers refused up front; a receiver that is not there costs the run nothing but is reported. */
@Timeout(60)
class RunMetricsTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter(), err = new StringWriter();

  CliContext ctx() {
    return new CliContext(new PrintWriter(out, true), new PrintWriter(err, true), Map.of(), InstantSource.system(), dir, false);
  }

  @Test
  void run_metricsNotHttpOrBadInterval_refusedUpFrontNamingTheFlags() {
    int code = Main.execute(ctx(), "run", "noop", "--metrics", "prometheus-rw=ftp://127.0.0.1/write", "--metrics-interval", "10ms", "--fork",
        "--out", "r.json");
    assertEquals(ExitCodes.USAGE, code, err.toString());
    assertTrue(err.toString().contains("--metrics prometheus-rw=ftp://127.0.0.1/write: the receiver must be an http:// or https:// URL"), err.toString());
    assertTrue(err.toString().contains("--metrics-interval 10ms: give 100ms or more"), err.toString());
    assertTrue(err.toString().contains("--metrics with --fork"), err.toString());
    assertFalse(Files.exists(dir.resolve("r.json")), "nothing run");
  }

  @Test
  void run_metricsReceiverRefusesConnections_runCompletesAndTheLossIsCountedInTheResult() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    int code = Main.execute(ctx(), "run", "noop", "--concurrency", "1", "--warmup", "0x1s", "--measure", "1x1s", "--quiet",
        "--metrics", "prometheus-rw=http://127.0.0.1:" + port + "/api/v1/write", "--metrics-interval", "300ms", "--out", "r.json");
    assertEquals(ExitCodes.OK, code, err.toString());
    RunResult result = RunResultJson.read(dir.resolve("r.json"));
    assertEquals(RunStatus.COMPLETE, result.status());
    assertTrue(result.workloads().get(0).levels().get(0).iterations().get(0).succeeded() > 0, "measured regardless");
    MetricsExport m = result.metrics();
    assertTrue(m.pushes() >= 2 && m.lost() == m.pushes() && m.delivered() == 0 && m.retries() == 3 * m.pushes(), m.toString());
    assertEquals("connection refused", m.lastError());
    assertTrue(err.toString().contains("metrics: " + m.lost() + " of " + m.pushes() + " pushes to prometheus-rw=http://127.0.0.1:" + port
        + "/api/v1/write lost after retries (last: connection refused)"), err.toString());
  }
}
