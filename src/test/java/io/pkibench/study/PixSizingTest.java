package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pix as its seed sizes: the draw to subtract is the client's cost, and one line answers "how many
 * cores for the original's rate".
 */
class PixSizingTest {
  @TempDir static Path dir;

  @BeforeAll
  static void pki() {
    TestKeys.in(dir);
  }

  /**
   * The draw of a message happens in the client: charging it to the idle key servers gave
   * "42,669,500 ops per CPU-second".
   */
  @Test
  void steps_randomBaseline_chargedToTheClient() throws Exception {
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null);
    PixStudy pix = new PixStudy();
    RunningServices services =
        RunningServices.plan(pix.services(options), List.of("java"), Map.of(), line -> {});
    Step random =
        pix.steps(options, services).stream()
            .filter(s -> s.label().equals(PixStudy.RANDOM))
            .findFirst()
            .orElseThrow();
    assertEquals("client", random.plan().cpu());
    String table = StudyTables.terminal(StudyRuns.run(pix, dir, label -> 900, label -> 0.45));
    assertTrue(SeedLines.line(table, PixStudy.RANDOM).contains("n/a (client CPU)"), table);
  }

  /**
   * The client at 16 threads spends 2,000 µs per operation (900/s on 90% of 2 cores), the key
   * servers 1,000 µs (45%): the original's 2,000 handshakes/s need 4 client cores and 2 key-server
   * cores, 6 in all, client : key server = 1 : 0.50.
   */
  @Test
  void terminal_originalsRate_oneSizingLineWithTheClientKeyServerSplit() throws Exception {
    RunResult run =
        StudyRuns.run(
            new PixStudy(),
            dir,
            label -> 900,
            label -> label.endsWith(PixStudy.CLIENT_CPU) ? 0.9 : 0.45);
    String table = StudyTables.terminal(run);
    assertTrue(
        table.contains(
            "sizing mTLS 1.2 handshake for the original's 2,000 ops/s: 6.0 cores busy in all, 4.0 client and 2.0 key-server"
                + " (client : key server = 1 : 0.50), from the CPU per operation of each at 16 threads"),
        table);
    assertTrue(
        table.contains(
            "sizing SPI signature for the original's 4,000 ops/s: 12.0 cores busy in all, 8.0 client and 4.0 key-server"),
        table);
  }

  /**
   * Quick figures from a client still compiling size nothing: the line says it is indicative, and
   * why.
   */
  @Test
  void terminal_clientStillWarmingUp_sizingSaysIndicativeOnly() throws Exception {
    RunResult run =
        StudyRuns.run(
            new PixStudy(),
            dir,
            label -> 900,
            label -> 0.45,
            label -> label.endsWith(PixStudy.CLIENT_CPU) ? 0.3 : 0);
    String sizing = SeedLines.line(StudyTables.terminal(run), "sizing " + PixStudy.SPI);
    assertTrue(
        sizing.endsWith(
            "; indicative only: the client's CPU per operation was still moving (still warming up)"),
        sizing);
    String steady =
        SeedLines.line(
            StudyTables.terminal(StudyRuns.run(new PixStudy(), dir, label -> 900, label -> 0.45)),
            "sizing " + PixStudy.SPI);
    assertTrue(!steady.contains("indicative"), steady);
  }

  /** The shared line finder of {@link StudySeedTest}. */
  static final class SeedLines {
    static String line(String text, String start) {
      return StudySeedTest.line(text, start);
    }
  }
}
