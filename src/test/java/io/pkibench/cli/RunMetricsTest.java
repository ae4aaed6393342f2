package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.pkibench.results.MetricsExport;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.session.ResultFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --metrics}: bad receivers refused up front; a receiver that is not there costs the run
 * nothing but is reported.
 */
@Timeout(60)
class RunMetricsTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter(), err = new StringWriter();

  CliContext ctx() {
    return new CliContext(
        new PrintWriter(out, true),
        new PrintWriter(err, true),
        Map.of(),
        InstantSource.system(),
        dir,
        false);
  }

  @Test
  void run_metricsNotHttpOrBadInterval_refusedUpFrontNamingTheFlags() {
    int code =
        Main.execute(
            ctx(),
            "run",
            "noop",
            "--metrics",
            "prometheus-rw=ftp://127.0.0.1/write",
            "--metrics-interval",
            "10ms",
            "--fork",
            "--out",
            "r.json");
    assertEquals(ExitCodes.USAGE, code, err.toString());
    assertTrue(
        err.toString()
            .contains(
                "--metrics prometheus-rw=ftp://127.0.0.1/write: the receiver must be an http:// or https:// URL"),
        err.toString());
    assertTrue(
        err.toString().contains("--metrics-interval 10ms: give 100ms or more"), err.toString());
    assertTrue(err.toString().contains("--metrics with --fork"), err.toString());
    assertFalse(Files.exists(dir.resolve("r.json")), "nothing run");
  }

  @Test
  void run_metricsReceiverRefusesConnections_runCompletesAndTheLossIsCountedInTheResult()
      throws Exception {
    int port = io.pkibench.testing.ReservedPorts.one();
    int code =
        Main.execute(
            ctx(),
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x1s",
            "--quiet",
            "--metrics",
            "prometheus-rw=http://127.0.0.1:" + port + "/api/v1/write",
            "--metrics-interval",
            "300ms",
            "--out",
            "r.json");
    assertEquals(ExitCodes.OK, code, err.toString());
    RunResult result = RunResultJson.read(dir.resolve("r.json"));
    assertEquals(RunStatus.COMPLETE, result.status());
    assertTrue(
        result.workloads().get(0).levels().get(0).iterations().get(0).succeeded() > 0,
        "measured regardless");
    MetricsExport m = result.metrics();
    assertTrue(
        m.pushes() >= 2
            && m.lost() == m.pushes()
            && m.delivered() == 0
            && m.retries() == 3 * m.pushes(),
        m.toString());
    assertEquals("connection refused", m.lastError());
    assertTrue(
        err.toString()
            .contains(
                "metrics: "
                    + m.lost()
                    + " of "
                    + m.pushes()
                    + " pushes to prometheus-rw=http://127.0.0.1:"
                    + port
                    + "/api/v1/write lost after retries (last: connection refused)"),
        err.toString());
  }

  /**
   * A receiver that reads each push and answers a header byte every 2 s, without end: the run still
   * prints its table and returns, the push it stopped waiting for said on the terminal and counted
   * lost in the result.
   */
  @Test
  void run_metricsReceiverNeverEndsItsAnswers_runEndsAndTheLossIsCounted() throws Exception {
    try (ServerSocket listening = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      long until =
          System.nanoTime()
              + java.time.Duration.ofSeconds(60).toNanos(); // the receiver stops by itself
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  for (int connections = 0; connections < 16; connections++) {
                    java.net.Socket s = listening.accept();
                    Thread.ofVirtual()
                        .start(
                            () -> {
                              try (s) {
                                s.getInputStream()
                                    .read(
                                        new byte
                                            [64 * 1024]); // the push, or the start of it: enough to
                                // be answering
                                s.getOutputStream().write("HTTP/1.1 200 OK\r\nX-Slow: ".getBytes());
                                while (System.nanoTime() < until) {
                                  s.getOutputStream().write('x');
                                  s.getOutputStream().flush();
                                  Thread.sleep(2_000);
                                }
                              } catch (Exception e) {
                                // the client closed the connection: its push's deadline
                              }
                            });
                  }
                } catch (java.io.IOException closed) {
                  // the test is over
                }
              });
      int code =
          Main.execute(
              ctx(),
              "run",
              "noop",
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--quiet",
              "--metrics",
              "prometheus-rw=http://127.0.0.1:" + listening.getLocalPort() + "/api/v1/write",
              "--out",
              "r.json");
      assertEquals(ExitCodes.OK, code, err.toString());
      assertTrue(out.toString().contains("saved "), "the table and the last lines printed: " + out);
      assertTrue(
          err.toString()
              .contains(
                  "had not ended 10 s after the run; not waiting for it longer, it is counted lost"),
          err.toString());
      MetricsExport m = RunResultJson.read(dir.resolve("r.json")).metrics();
      assertTrue(m.pushes() >= 1 && m.delivered() == 0 && m.lost() == m.pushes(), m.toString());
    }
  }

  /**
   * A --metrics URL holding a password in its user info and a key in its query: the pushes arrive
   * (the query is the receiver's), yet neither secret is in the result file, the interval log, the
   * report or anything printed.
   */
  @Test
  void run_metricsUrlHoldingSecrets_secretsInNoFileAndNothingPrinted() throws Exception {
    HttpServer receiver =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    List<String> queries = new CopyOnWriteArrayList<>();
    receiver.createContext(
        "/api/v1/write",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          queries.add(exchange.getRequestURI().getRawQuery());
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.start();
    try {
      String url =
          "http://pkibench:Pw-SECRET-1@127.0.0.1:"
              + receiver.getAddress().getPort()
              + "/api/v1/write?tenant=t1&api_key=Key-SECRET-2";
      int code =
          Main.execute(
              ctx(),
              "run",
              "noop",
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--quiet",
              "--metrics",
              "prometheus-rw=" + url,
              "--out",
              "r.json",
              "--html",
              "r.html");
      assertEquals(ExitCodes.OK, code, err.toString());
      assertTrue(
          !queries.isEmpty() && queries.stream().allMatch("tenant=t1&api_key=Key-SECRET-2"::equals),
          "the receiver got its query: " + queries);
      RunResult result = RunResultJson.read(dir.resolve("r.json"));
      assertEquals(0, result.metrics().lost(), result.metrics().toString());
      assertEquals(
          "pkibench run noop --concurrency 1 --warmup 0x1s --measure 1x1s --quiet --metrics prometheus-rw=http://***@127.0.0.1:"
              + receiver.getAddress().getPort()
              + "/api/v1/write?tenant=t1&api_key=*** --out r.json --html r.html",
          result.environment().commandLine());
      Map<String, String> kept =
          Map.of(
              "r.json", Files.readString(dir.resolve("r.json")),
              "r.hlog", Files.readString(ResultFile.hlogFileFor(dir.resolve("r.json"))),
              "r.html", Files.readString(dir.resolve("r.html")),
              "stdout", out.toString(),
              "stderr", err.toString());
      kept.forEach(
          (where, text) -> {
            assertFalse(text.contains("SECRET"), where + " holds a secret of the --metrics URL");
            assertTrue(
                where.startsWith("std") || text.contains("api_key=***"),
                where + " shows the command line, redacted");
          });
    } finally {
      receiver.stop(0);
    }
  }
}
