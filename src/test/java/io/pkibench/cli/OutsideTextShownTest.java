package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.pkibench.results.ErrorCount;
import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text from outside pkibench — a service's error page, a result file's names and causes, a scenario
 * file's keys — reaches the terminal with its escapes, line breaks and bidi overrides written as
 * codes: such a text cannot recolour, clear, reorder or forge a line of the output.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class OutsideTextShownTest {
  /** Colours the terminal red, starts a line of its own, and turns the rest of the line around. */
  static final String HOSTILE = "\u001b[31mred\r\nFORGED: all passed\u202eevil";

  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  /** Nothing of {@link #HOSTILE} raw in what was printed: no ESC, CR, U+202E, no line it began. */
  static void assertNothingRaw(String printed) {
    assertFalse(printed.indexOf('\u001b') >= 0, "a raw ESC was printed:\n" + printed);
    assertFalse(printed.indexOf('\r') >= 0, "a raw CR was printed:\n" + printed);
    assertFalse(printed.indexOf('\u202e') >= 0, "a raw U+202E was printed:\n" + printed);
    assertFalse(
        printed.lines().anyMatch(l -> l.startsWith("FORGED")),
        "a line began with the outside text:\n" + printed);
  }

  @Test
  void run_serviceAnswers500WithEscapes_causeShownEscaped() throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] body = HOSTILE.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(500, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    int code;
    try {
      code =
          run(
              "run",
              "http:auth",
              "--target",
              "http://127.0.0.1:" + server.getAddress().getPort(),
              "--pki",
              "pki",
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--quiet",
              "--out",
              "r.json");
    } finally {
      server.stop(0);
    }
    // The check before the run meets the 500 first: the service's words reach the terminal in its
    // one line, escaped.
    assertEquals(2, code, err.toString());
    String printed = out + "\n" + err;
    assertNothingRaw(printed);
    assertTrue(
        printed.contains("HTTP 500")
            && printed.contains("\\x1b[31mred\\x0d FORGED: all passed\\u202eevil"),
        "the cause shown with its codes:\n" + printed);
  }

  @Test
  void reportAndCompare_resultFileWithEscapesInNamesAndCauses_shownEscaped() throws Exception {
    RunResult fixture =
        ResultFixtures.closedRun(
            "sign" + HOSTILE,
            new int[] {1, 2},
            new double[][] {{100, 101, 99}, {190, 200, 210}},
            new long[] {1_000_000, 2_000_000});
    WorkloadResult w = fixture.workloads().get(0);
    LevelResult first = w.levels().get(0);
    LevelResult failing =
        new LevelResult(
            first.concurrency(),
            first.counts(),
            first.throughput(),
            first.latencyNanos(),
            first.cpu(),
            List.of(new ErrorCount("java.io.IOException: " + HOSTILE, 3)),
            first.openLoop(),
            first.iterations());
    RunResult hostile =
        fixture.withWorkload(
            0,
            WorkloadResult.builder(w.name())
                .params(Map.of("alg" + HOSTILE, "rsa2048" + HOSTILE))
                .keys(w.keys() + HOSTILE)
                .cpuMeter(w.cpuMeter())
                .failure("stopped" + HOSTILE)
                .notes(List.of("a note" + HOSTILE))
                .build()
                .withLevel(failing)
                .withLevel(w.levels().get(1)));
    RunResultJson.write(hostile, dir.resolve("hostile.json"));

    assertEquals(0, run("report", "hostile.json"), err.toString());
    String printed = out + "\n" + err;
    assertNothingRaw(printed);
    assertTrue(
        printed.contains("sign\\x1b[31mred\\x0d\\x0aFORGED: all passed\\u202eevil"),
        "the name shown with its codes:\n" + printed);
    assertTrue(printed.contains("java.io.IOException: \\x1b[31mred"), "the cause too:\n" + printed);

    out.getBuffer().setLength(0);
    assertEquals(0, run("report", "hostile.json", "--format", "csv"), err.toString());
    assertNothingRaw(out + "\n" + err);
    assertTrue(out.toString().contains("sign\\x1b[31mred"), "the CSV's names too:\n" + out);

    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    run("compare", "hostile.json", "hostile.json");
    printed = out + "\n" + err;
    assertNothingRaw(printed);
    assertTrue(
        printed.contains("sign\\x1b[31mred"),
        "compare names the workload with its codes:\n" + printed);
  }

  @Test
  void runScenario_keyWithEscapes_refusalNamesItEscaped() throws Exception {
    Files.writeString(
        dir.resolve("bad.yaml"),
        "\"conc\\e[2J\\r\\nFORGED: ok\\u202E\": 4\nmembers:\n  - {name: sign, weight: 1, \"w\\e[31m\": 2}\n");
    assertEquals(2, run("run", "--scenario", "bad.yaml"));
    String printed = out + "\n" + err;
    assertNothingRaw(printed);
    assertTrue(
        printed.contains("bad.yaml line 1: unknown key 'conc\\x1b[2J\\x0d\\x0aFORGED: ok\\u202e'"),
        printed);
    assertTrue(printed.contains("bad.yaml line 3: members: unknown key 'w\\x1b[31m'"), printed);
  }
}
