package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.RunResultJson;
import io.pkibench.session.SeriesRequest;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A symbolic link planted at the path of a file pkibench writes beside a result (in a shared
 * directory, someone else's link to a file of the user's) is never written through: a file written
 * whole replaces the link by a regular file of its own, mode 0600; a file written as the run goes
 * refuses the link, naming its path. The victim is untouched.
 */
@Timeout(120)
class OutputLinksTest {
  static final String VICTIM_TEXT = "the victim's own content\n";
  @TempDir Path dir;
  Path victim;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @BeforeEach
  void victimElsewhere() throws Exception {
    victim = Files.createDirectories(dir.resolve("elsewhere")).resolve("victim.txt");
    Files.writeString(victim, VICTIM_TEXT);
  }

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  void plantLink(String name) throws Exception {
    Files.createDirectories(dir.resolve(name).getParent());
    Files.createSymbolicLink(dir.resolve(name), victim);
  }

  void assertVictimUntouched() throws Exception {
    assertEquals(VICTIM_TEXT, Files.readString(victim), "the file the link points at is untouched");
  }

  /** Written whole: the link is gone, a regular file of the owner's alone stands at its path. */
  void assertReplacedByOwnFile(String name) throws Exception {
    Path file = dir.resolve(name);
    assertFalse(Files.isSymbolicLink(file), name + " is no longer a link");
    assertTrue(Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS), name + " is a regular file");
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)),
        name);
    assertVictimUntouched();
  }

  @Test
  void run_linkAtTheIntervalLog_refusedNamingItAndTheVictimUntouched() throws Exception {
    plantLink("r.hlog");
    assertNotEquals(
        0,
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--out",
            "r.json"));
    assertTrue(
        err.toString().contains(dir.resolve("r.hlog") + " is a symbolic link"), err.toString());
    assertVictimUntouched();
  }

  @Test
  void run_intervalLog_isOwnerOnly() throws Exception {
    Files.writeString(dir.resolve("r.hlog"), "an earlier run's log, readable by all\n");
    Files.setPosixFilePermissions(
        dir.resolve("r.hlog"), PosixFilePermissions.fromString("rw-r--r--"));
    assertEquals(
        0,
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--out",
            "r.json"),
        err.toString());
    for (String name : new String[] {"r.json", "r.hlog"}) {
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(name))),
          name);
    }
  }

  @Test
  void run_linkAtTheStagedLevelsJournal_refusedNamingItAndTheVictimUntouched() throws Exception {
    plantLink("r.timeline.jsonl");
    assertEquals(0, run("run", "noop", "--stages", "1s:1,1s:1", "--out", "r.json"), err.toString());
    assertTrue(
        err.toString().contains(dir.resolve("r.timeline.jsonl") + " is a symbolic link"),
        err.toString());
    assertVictimUntouched();
  }

  @Test
  void run_linkAtTheHtmlReport_replacedByTheReport() throws Exception {
    plantLink("r.html");
    assertEquals(
        0,
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--out",
            "r.json",
            "--html",
            "r.html"),
        err.toString());
    assertReplacedByOwnFile("r.html");
    assertTrue(Files.readString(dir.resolve("r.html")).contains("<html"), "the report");
  }

  @Test
  void report_linkAtAChartsPng_replacedByTheChart() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--out",
            "r.json"),
        err.toString());
    assertEquals(0, run("report", "r.json", "--png", "charts"), err.toString());
    String chart;
    try (var written = Files.list(dir.resolve("charts"))) {
      chart =
          "charts/"
              + written
                  .map(p -> p.getFileName().toString())
                  .filter(n -> n.endsWith(".png"))
                  .sorted()
                  .findFirst()
                  .orElseThrow();
    }
    Files.delete(dir.resolve(chart));
    plantLink(chart);
    assertEquals(0, run("report", "r.json", "--png", "charts"), err.toString());
    assertReplacedByOwnFile(chart);
  }

  /** The files a forked series' child writes: its interval log as it goes, its answer whole. */
  @Test
  void series_linkAtTheChildsIntervalLogOrAnswer_neitherWrittenThrough() throws Exception {
    SeriesRequest request =
        new SeriesRequest(
            new WorkloadSpec("noop", Map.of(), null, null),
            new LevelLoad.Closed(1),
            1,
            1,
            new Iterations(0, Duration.ofSeconds(1)),
            new Iterations(1, Duration.ofMillis(200)),
            ThreadKind.PLATFORM,
            false,
            "jvm",
            5_000);
    Files.writeString(
        dir.resolve("request.json"), RunResultJson.mapper().writeValueAsString(request));

    plantLink("child.hlog");
    assertNotEquals(
        0,
        run(
            "series",
            "--request",
            "request.json",
            "--response",
            "response.json",
            "--hlog",
            "child.hlog"));
    assertTrue(
        err.toString().contains(dir.resolve("child.hlog") + " is a symbolic link"), err.toString());
    assertVictimUntouched();

    Files.delete(dir.resolve("child.hlog"));
    plantLink("response.json");
    plantLink("response.json.tmp");
    assertEquals(
        0,
        run(
            "series",
            "--request",
            "request.json",
            "--response",
            "response.json",
            "--hlog",
            "child.hlog"),
        err.toString());
    assertReplacedByOwnFile("response.json");
    assertTrue(
        Files.readString(dir.resolve("response.json")).contains("pkibench.series/1"), "the answer");
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(dir.resolve("child.hlog"), LinkOption.NOFOLLOW_LINKS)),
        "the child's interval log");
  }
}
