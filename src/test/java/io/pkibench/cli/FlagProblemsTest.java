package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;

/**
 * One collector for a command's flag problems: every bad flag said at once, each with its flag and
 * the fix, and a stand-in value so that the checks after a bad one still run.
 */
class FlagProblemsTest {
  @TempDir Path dir;

  @Command(name = "probe")
  static final class Probe {}

  @Test
  void severalBadFlags_allReportedInOneRefusal_eachNamingItsFlagAndFix() {
    FlagProblems problems = new FlagProblems();
    Duration idle = problems.duration("--idle-timeout soon", "soon", Duration.ZERO);
    Duration frame =
        problems.durationOfAtLeast(
            "--frame-deadline", "10ms", Duration.ofMillis(100), "30s", Duration.ofSeconds(1));
    problems.within("--threads", 5000, 1, 4096);
    problems.require(false, "--client-auth", "maybe", "use none or need");
    problems.add("--users and --users-file: give one of them");

    assertEquals(Duration.ZERO, idle, "a bad duration gives the stand-in");
    assertEquals(Duration.ofSeconds(1), frame, "a too short one too");
    ParameterException refused =
        assertThrows(
            ParameterException.class, () -> problems.throwIfAny(new CommandLine(new Probe())));
    List<String> lines = List.of(refused.getMessage().split("\n"));
    assertEquals(5, lines.size(), refused.getMessage());
    assertTrue(
        lines.get(0).startsWith("--idle-timeout soon: 'soon' is not a duration"), lines.get(0));
    assertEquals("--frame-deadline 10ms: give at least 100ms, e.g. 30s", lines.get(1));
    assertEquals("--threads 5000: give 1 to 4096", lines.get(2));
    assertEquals("--client-auth maybe: use none or need", lines.get(3));
    assertEquals("--users and --users-file: give one of them", lines.get(4));
  }

  @Test
  void goodFlags_giveTheirValues_andNothingIsRefused() {
    FlagProblems problems = new FlagProblems();
    assertEquals(Duration.ofMinutes(5), problems.duration("--wait", "5m", Duration.ZERO));
    assertEquals(
        Duration.ofSeconds(30),
        problems.durationOfAtLeast(
            "--frame-deadline", "30s", Duration.ofMillis(100), "30s", Duration.ofSeconds(1)));
    problems.within("--threads", 4096, 1, 4096);
    problems.require(true, "--client-auth", "need", "use none or need");
    assertTrue(problems.isEmpty(), problems.list().toString());
    problems.throwIfAny(new CommandLine(new Probe())); // nothing to refuse
  }

  @Test
  void serveTlsecho_threeBadFlags_exit2WithEveryProblemBeforeAnythingListens() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    int code =
        InThisJvm.run(
            dir,
            out,
            err,
            "serve",
            "tlsecho",
            "--port",
            "0",
            "--pki",
            "pki",
            "--idle-timeout",
            "soon",
            "--frame-deadline",
            "10ms",
            "--max-connections-per-address",
            "0");
    assertEquals(2, code, err.toString());
    for (String named :
        List.of(
            "--idle-timeout soon: 'soon' is not a duration",
            "--frame-deadline 10ms: give at least 100ms, e.g. 30s",
            "--max-connections-per-address 0: give at least 1")) {
      assertTrue(err.toString().contains(named), "'" + named + "' in:\n" + err);
    }
    assertEquals("", out.toString(), "nothing started, so no ready line");
    assertTrue(!Files.exists(dir.resolve("pki")), "refused before the test PKI was made");
  }
}
