package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** run --duration D, study's flag, is --measure 1xD. */
class RunDurationFlagTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @Test
  void duration_isOneMeasuredIterationOfThatLength() throws Exception {
    int code =
        InThisJvm.run(
            dir,
            out,
            err,
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--duration",
            "300ms",
            "--pki",
            "pki",
            "-o",
            "r.json");
    assertEquals(0, code, err.toString());
    RunResult r = RunResultJson.read(dir.resolve("r.json"));
    var measured =
        r.workloads().get(0).levels().get(0).iterations().stream()
            .filter(i -> !i.warmup())
            .toList();
    assertEquals(1, measured.size(), "one measured iteration");
    long millis = Duration.ofNanos(measured.get(0).durationNanos()).toMillis();
    assertTrue(millis >= 290 && millis < 1000, "of about 300 ms: " + millis);
  }

  @Test
  void durationWithMeasure_refusedNamingBoth() {
    int code =
        InThisJvm.run(
            dir, out, err, "run", "noop", "--duration", "1s", "--measure", "2x1s", "--pki", "pki");
    assertEquals(2, code);
    assertTrue(err.toString().contains("--duration and --measure"), err.toString());
    err.getBuffer().setLength(0);
    assertEquals(2, InThisJvm.run(dir, out, err, "run", "noop", "--duration", "soon"));
    assertTrue(err.toString().contains("--duration"), err.toString());
  }
}
