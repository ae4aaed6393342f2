package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.analysis.UslFit;
import io.pkibench.analysis.UslForecastTest;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.testing.GoldenFiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pkibench fit} in-process: what it prints, its JSON contract, and every bad input named.
 */
class FitCommandTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false),
        args);
  }

  Path cisco(boolean header) throws Exception {
    StringBuilder csv = new StringBuilder(header ? "concurrency,throughput\n" : "");
    for (double[] row : UslForecastTest.CISCO)
      csv.append((long) row[0]).append(',').append(row[1]).append('\n');
    return Files.writeString(dir.resolve("cisco.csv"), csv);
  }

  @Test
  void fit_csvWithHeader_printsTheBooksParametersWithIntervals() throws Exception {
    cisco(true);
    assertEquals(0, run("fit", "cisco.csv"), err.toString());
    String table = out.toString();
    assertTrue(table.contains("32 points, concurrency up to 32"), table);
    assertTrue(table.matches("(?s).*σ \\(contention\\)\\s+0\\.0267[12].*"), table);
    assertTrue(table.matches("(?s).*λ \\(one worker, ops/s\\)\\s+995\\.[6-7].*"), table);
    assertTrue(table.contains("N_max (peak at)") && table.contains("X_max (peak, ops/s)"), table);
  }

  /**
   * The contract: on the book's data cut to 10 points, the held-out points' misses, a prediction
   * declined far past the cut.
   */
  @Test
  void fit_uptoTenWithPredictionsAndTarget_jsonIsTheSealedContract() throws Exception {
    cisco(false);
    assertEquals(
        0,
        run(
            "fit",
            "cisco.csv",
            "--upto",
            "10",
            "--predict",
            "16,32",
            "--target-rate",
            "7000",
            "--format",
            "json"),
        err.toString());
    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertEquals("pkibench.fit/1", json.get("schema").asText());
    assertEquals(10, json.get("points").asInt());
    JsonNode at16 = json.get("predictions").get(0);
    assertEquals(16, at16.get("n").asDouble());
    assertTrue(at16.get("extrapolated").asBoolean());
    assertTrue(
        at16.get("low").asDouble() < at16.get("x").asDouble()
            && at16.get("x").asDouble() < at16.get("high").asDouble(),
        at16.toString());
    JsonNode at32 = json.get("predictions").get(1);
    assertTrue(
        at32.get("x").isNull() && at32.get("low").isNull() && at32.get("high").isNull(),
        "declined: no figure " + at32);
    assertTrue(at32.get("declined").asText().contains("more than 2×"), at32.toString());
    JsonNode holdout = json.get("holdout");
    assertEquals(22, holdout.size(), "every point above 10 held out");
    JsonNode last = holdout.get(21);
    assertEquals(32, last.get("n").asDouble());
    assertEquals(12074.39, last.get("measured").asDouble());
    assertTrue(
        last.get("miss").asDouble() > 0.15,
        "fitted on 10 points, the curve over-predicts 32 (the book: by about a quarter): " + last);
    assertTrue(last.get("farPastFit").asBoolean());
    assertEquals(7000, json.at("/targetRate/rate").asDouble());
    assertTrue(
        json.at("/targetRate/concurrency").asDouble() > 7
            && json.at("/targetRate/concurrency").asDouble() < 10,
        json.get("targetRate").toString());
    GoldenFiles.assertMatches(
        Path.of("src/test/resources/golden/fit-v1.json"),
        out.toString(),
        "fit's JSON changed: a new schema version if a field moved");
  }

  @Test
  void fit_upto_tableShowsHeldOutMisses() throws Exception {
    cisco(false);
    assertEquals(0, run("fit", "cisco.csv", "--upto", "10"), err.toString());
    assertTrue(out.toString().contains("Held out (measured above --upto 10"), out.toString());
    assertTrue(out.toString().contains("fit --predict declines here"), out.toString());
  }

  @Test
  void fit_resultFile_fitsItsOnlyWorkloadsLevels() throws Exception {
    int[] levels = {1, 2, 4, 8, 16, 32};
    double[][] rates = new double[levels.length][];
    long[] latency = new long[levels.length];
    for (int i = 0; i < levels.length; i++) {
      double x = UslFit.predict(levels[i], 0.05, 0.001, 1000);
      rates[i] = new double[] {x * 0.99, x, x * 1.01, x, x};
      latency[i] = 1_000_000;
    }
    RunResult result = ResultFixtures.closedRun("sign", levels, rates, latency);
    RunResultJson.write(result, dir.resolve("run.json"));
    assertEquals(0, run("fit", "run.json", "--format", "json"), err.toString());
    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertEquals(6, json.get("points").asInt());
    assertEquals(0.05, json.at("/sigma/value").asDouble(), 0.005);
    assertTrue(json.get("source").asText().contains("sign"), json.toString());
  }

  @Test
  void fit_badInput_everyProblemNamedExit2() throws Exception {
    Files.writeString(dir.resolve("bad.csv"), "n,x\n1,100\ntwo,200\n4,-5\n8,1,2,3\n");
    assertEquals(
        2, run("fit", "bad.csv", "--upto", "0", "--confidence", "100", "--workload", "sign"));
    String said = err.toString();
    for (String named :
        List.of(
            "bad.csv line 3: concurrency 'two'",
            "bad.csv line 4: throughput '-5'",
            "bad.csv line 5: 4 column(s)",
            "--upto 0",
            "--confidence 100",
            "--workload sign: only a result file")) {
      assertTrue(said.contains(named), named + " in: " + said);
    }
    assertEquals(2, run("fit", "missing.csv"));
    assertTrue(err.toString().contains("FILE missing.csv: no such file"), err.toString());
  }

  @Test
  void fit_superlinearPoints_noFitAndTheUnconstrainedFitNamed() throws Exception {
    // each worker adds more than the one before (a cache warming): no USL curve with σ ≥ 0
    Files.writeString(dir.resolve("super.csv"), "1,100\n2,260\n3,450\n4,700\n5,1000\n6,1400\n");
    assertEquals(1, run("fit", "super.csv"));
    assertTrue(err.toString().contains("No USL fit for super.csv"), err.toString());
    assertTrue(
        err.toString().contains("superlinear") && err.toString().contains("σ=-"), err.toString());
  }

  @Test
  void fit_fewPoints_fitsAndSaysNoInterval() throws Exception {
    List<String> rows = new ArrayList<>();
    for (int n : new int[] {1, 2, 4}) rows.add(n + "," + UslFit.predict(n, 0.1, 0.01, 100));
    Files.write(dir.resolve("three.csv"), rows);
    assertEquals(0, run("fit", "three.csv"), err.toString());
    assertTrue(
        out.toString().contains("3 points fix the 3 parameters exactly: no interval"),
        out.toString());
  }
}
