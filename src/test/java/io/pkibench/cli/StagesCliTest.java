package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --stages} from the command line: what it refuses, what it records, how report and compare show it. */
@Timeout(120)
class StagesCliTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    CliContext ctx = new CliContext(new PrintWriter(out, true), new PrintWriter(err, true), Map.of(), InstantSource.system(), dir, false);
    return Main.execute(ctx, args);
  }

  @Test
  void run_badStagesAndClashingFlags_exit2WithEveryProblemBeforeAnythingRuns() {
    assertEquals(2, run("run", "noop", "--stages", "400/s,10s:-5/s,10s:400/h", "--rates", "100", "--measure", "2x1s", "--fork", "-o", "x.json"));
    String e = err.toString();
    for (String said : new String[] {"'400/s' has no duration", "below 0/s", "'400/h' is not a target", "--rates and --stages",
        "--measure and --stages", "--fork and --stages"}) {
      assertTrue(e.contains(said), "says " + said + ": " + e);
    }
    assertFalse(Files.exists(dir.resolve("x.json")), "nothing ran");
    assertEquals(2, run("run", "noop", "--stages", "1s:4,1s:8/s"));
    assertTrue(err.toString().contains("mixes rates"), err.toString());
    assertEquals(2, run("run", "noop", "--stages", "1s:4", "--concurrency", "8"));
    assertTrue(err.toString().contains("the stages give the worker counts"), err.toString());
  }
}
