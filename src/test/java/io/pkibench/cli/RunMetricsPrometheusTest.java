package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.results.IterationResult;
import io.pkibench.results.MemberLevel;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.testing.PrometheusServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --metrics prometheus-rw=URL} into Debian's Prometheus with its remote-write receiver
 * on: what Prometheus stored equals the result file's counts, the mix's member by member, and every
 * PromQL expression of deploy/grafana/pkibench.json returns data.
 */
@Timeout(120)
class RunMetricsPrometheusTest {
  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final Path DASHBOARD = Path.of("deploy/grafana/pkibench.json");
  @TempDir Path dir;

  /**
   * Every PromQL expression of the dashboard (panels and annotations), with Grafana's variables
   * given values.
   */
  static List<String> dashboardExpressions(String runId) throws Exception {
    List<String> found = new ArrayList<>();
    new ObjectMapper()
        .readTree(DASHBOARD.toFile())
        .findValues("expr")
        .forEach(e -> found.add(e.asText()));
    return found.stream()
        .map(e -> e.replace("$run", runId).replace("$__rate_interval", "30s"))
        .toList();
  }

  /**
   * Runs a short open-loop mix (noop and digest, 7:3) pushing to {@code metricsFlag}, then checks
   * what {@code prometheus} stored against its result: the totals, and each member's counter
   * against the member's counts.
   */
  static RunResult runAndCompare(Path dir, PrometheusServer prometheus, String metricsFlag)
      throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    double startSeconds = System.currentTimeMillis() / 1000.0;
    int code =
        Main.execute(
            ctx,
            "run",
            "--mix",
            "noop=7,digest=3",
            "--rates",
            "300",
            "--concurrency",
            "2",
            "--warmup",
            "1x1s",
            // 6 measured seconds, six pushes or so. With 4, one suite run (two forks, loaded) saw
            // the counters right but every quantile NaN: no rate() over the measure phase's buckets
            // had an increase, as if they reached Prometheus only once, already whole (inferred)
            "--measure",
            "3x2s",
            "--cpu",
            "host",
            "--quiet",
            "--metrics",
            metricsFlag,
            "--metrics-interval",
            "1s",
            "--out",
            "metrics-run.json");
    assertEquals(ExitCodes.OK, code, err.toString());
    double endSeconds = System.currentTimeMillis() / 1000.0;
    RunResult result = RunResultJson.read(dir.resolve("metrics-run.json"));
    assertEquals(0, result.metrics().lost(), result.metrics() + "\n" + err + prometheus.logTail());
    assertTrue(result.metrics().delivered() >= 3, result.metrics().toString());
    List<IterationResult> iterations = result.workloads().get(0).levels().get(0).iterations();
    long measuredOk =
        iterations.stream().filter(i -> !i.warmup()).mapToLong(IterationResult::succeeded).sum();
    long measuredFailed =
        iterations.stream().filter(i -> !i.warmup()).mapToLong(IterationResult::failed).sum();
    long warmupOk =
        iterations.stream()
            .filter(IterationResult::warmup)
            .mapToLong(IterationResult::succeeded)
            .sum();
    assertTrue(measuredOk > 500 && warmupOk > 100, iterations.toString());

    String run = "run=\"metrics-run\"";
    // A mix's operations are counted once, by member: a sum over the members is the mix's total.
    assertEquals(
        measuredOk,
        (long)
            prometheus.scalar(
                "sum(pkibench_operations_total{" + run + ", phase=\"measure\", outcome=\"ok\"})",
                endSeconds));
    assertEquals(
        measuredFailed,
        (long)
            prometheus.scalar(
                "sum(pkibench_operations_total{" + run + ", phase=\"measure\", outcome=\"error\"})",
                endSeconds));
    assertEquals(
        warmupOk,
        (long)
            prometheus.scalar(
                "sum(pkibench_operations_total{" + run + ", phase=\"warmup\", outcome=\"ok\"})",
                endSeconds));
    assertEquals(
        measuredOk,
        (long)
            prometheus.scalar(
                "sum(pkibench_operation_duration_seconds_count{" + run + ", phase=\"measure\"})",
                endSeconds));
    assertEquals(
        measuredOk,
        (long)
            prometheus.scalar(
                "sum(pkibench_operation_duration_seconds_bucket{"
                    + run
                    + ", phase=\"measure\", le=\"+Inf\"})",
                endSeconds));
    List<MemberLevel> members = result.workloads().get(0).levels().get(0).members();
    assertEquals(List.of("noop", "digest"), members.stream().map(MemberLevel::label).toList());
    for (MemberLevel m : members) {
      String member = run + ", phase=\"measure\", member=\"" + m.label() + "\"";
      assertTrue(m.counts().succeeded() > 50, "each member drawn: " + m);
      assertEquals(
          m.counts().succeeded(),
          (long)
              prometheus.scalar(
                  "pkibench_operations_total{" + member + ", outcome=\"ok\"}", endSeconds),
          m.label() + "'s counter is its count in the result");
      assertEquals(
          m.counts().failed(),
          (long)
              prometheus.scalar(
                  "pkibench_operations_total{" + member + ", outcome=\"error\"}", endSeconds));
      assertEquals(
          m.counts().succeeded(),
          (long)
              prometheus.scalar(
                  "pkibench_operation_duration_seconds_count{" + member + "}", endSeconds),
          m.label() + "'s histogram holds its successes");
    }
    assertEquals(
        300.0,
        prometheus.scalar(
            "max_over_time(pkibench_target_rate_per_second{" + run + ", phase=\"measure\"}[5m])",
            endSeconds));

    List<String> expressions = dashboardExpressions("metrics-run");
    assertTrue(expressions.size() >= 10, expressions.toString());
    List<String> empty = new ArrayList<>();
    for (String expr : expressions) {
      JsonNode series = prometheus.queryRange(expr, startSeconds, endSeconds, 1);
      boolean data = false;
      for (JsonNode s : series)
        for (JsonNode point : s.get("values")) data |= !point.get(1).asText().equals("NaN");
      if (!data) empty.add(expr + " -> " + series);
    }
    assertEquals(List.of(), empty, "dashboard expressions without data");
    // The dashboard's run picker lists the run.
    JsonNode runs =
        prometheus.api(
            "/api/v1/label/run/values?match[]="
                + URLEncoder.encode("pkibench_operations_total", StandardCharsets.UTF_8));
    assertTrue(runs.toString().contains("\"metrics-run\""), runs.toString());
    return result;
  }

  @Test
  void studyRestpki_metricsWithAgents_refusedNamingBothFlags() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    assertEquals(
        ExitCodes.USAGE,
        Main.execute(
            ctx,
            "study",
            "restpki",
            "--smoke",
            "--agents",
            "2",
            "--local",
            "--pki",
            "pki",
            "--metrics",
            "prometheus-rw=http://127.0.0.1:9/api/v1/write"));
    assertTrue(
        err.toString().contains("--metrics with --agents: the agents measure in JVMs of their own"),
        err.toString());
    assertTrue(!Files.exists(dir.resolve("restpki.json")), "nothing ran");
  }

  /**
   * {@code study restpki --metrics}: each step's levels pushed live, the step in the workload
   * label, the counts the result's.
   */
  @Test
  @Timeout(300)
  void studyRestpki_metricsIntoPrometheusRemoteWrite_eachStepPushedWithTheResultsCounts()
      throws Exception {
    try (PrometheusServer prometheus =
        PrometheusServer.start(PROMETHEUS, dir, "--web.enable-remote-write-receiver")) {
      StringWriter out = new StringWriter(), err = new StringWriter();
      CliContext ctx =
          new CliContext(
              new PrintWriter(out, true),
              new PrintWriter(err, true),
              Map.of("PATH", System.getenv("PATH")),
              InstantSource.system(),
              dir,
              false);
      assertEquals(
          ExitCodes.OK,
          Main.execute(
              ctx,
              "study",
              "restpki",
              "--smoke",
              "--types",
              "cades",
              "--pki",
              "pki",
              "--out",
              "restpki.json",
              "--metrics",
              "prometheus-rw=" + prometheus.url("/api/v1/write"),
              "--metrics-interval",
              "1s"),
          err.toString());
      double endSeconds = System.currentTimeMillis() / 1000.0;
      RunResult result = RunResultJson.read(dir.resolve("restpki.json"));
      assertEquals(
          0, result.metrics().lost(), result.metrics() + "\n" + err + prometheus.logTail());
      assertTrue(result.metrics().delivered() >= 2, result.metrics().toString());
      for (var w : result.workloads()) {
        String step = w.step().label() + "." + w.step().role() + "/" + w.name();
        long measuredOk =
            w.levels().stream()
                .flatMap(l -> l.iterations().stream())
                .filter(i -> !i.warmup())
                .mapToLong(IterationResult::succeeded)
                .sum();
        assertTrue(measuredOk > 0, step);
        assertEquals(
            measuredOk,
            (long)
                prometheus.scalar(
                    "sum(pkibench_operations_total{run=\"restpki\", workload=\""
                        + step
                        + "\", phase=\"measure\", outcome=\"ok\"})",
                    endSeconds),
            step + ": its pushed counter is the result's count");
      }
    }
  }

  @Test
  void run_metricsIntoPrometheusRemoteWrite_countsEqualTheResultAndEveryDashboardQueryHasData()
      throws Exception {
    assertTrue(Files.exists(DASHBOARD), "the dashboard is read from the working tree");
    try (PrometheusServer prometheus =
        PrometheusServer.start(PROMETHEUS, dir, "--web.enable-remote-write-receiver")) {
      RunResult result =
          runAndCompare(dir, prometheus, "prometheus-rw=" + prometheus.url("/api/v1/write"));
      assertEquals("prometheus-rw=" + prometheus.url("/api/v1/write"), result.metrics().target());
    }
  }
}
