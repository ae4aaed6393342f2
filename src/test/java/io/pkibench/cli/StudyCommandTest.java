package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code study rsfn} and {@code study pec} through the command line, with their bad input: every
 * problem at once, exit 2, before any service starts or any file is written. Their runs are not
 * repeated here: a quick run of either takes 2-3 minutes on two cores; RsfnStudyTest and
 * PecStudyTest run them through the same StudyRunner the command calls.
 */
class StudyCommandTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    err.getBuffer().setLength(0);
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    return Main.execute(ctx, args);
  }

  @Test
  void
      studyRsfn_shortDurationRemoteKeysUnreadablePinAndUnwritableOut_exit2NamingEachBeforeAnyNodeStarts()
          throws Exception {
    Files.writeString(dir.resolve("a-file"), "not a directory");
    assertEquals(
        2,
        run(
            "study",
            "rsfn",
            "--duration",
            "500ms",
            "--keys",
            "remote:127.0.0.1:9443",
            "--pin-file",
            "no-pin.txt",
            "--out",
            "a-file/rsfn.json",
            "--pki",
            "pki"));
    String e = err.toString();
    for (String named :
        List.of(
            "--duration: each run lasts at least 1s",
            "--keys remote:127.0.0.1:9443: the study starts its own key-server nodes",
            "--pin-file no-pin.txt",
            "--out a-file/rsfn.json")) {
      assertTrue(e.contains(named), "'" + named + "' in:\n" + e);
    }
    assertFalse(
        Files.exists(dir.resolve("pki")), "refused before anything was made: no test PKI either");
    assertEquals(2, run("study", "rsfn", "--duration", "soon"));
    assertTrue(err.toString().contains("--duration: "), err.toString());
  }

  @Test
  void
      studyPec_badRateWorkersDurationAndADirectoryWithOthersFiles_exit2NamingEachBeforeAnyProviderStarts()
          throws Exception {
    Path busy = Files.createDirectories(dir.resolve("busy"));
    Files.writeString(busy.resolve("mine.txt"), "someone's file");
    Files.writeString(dir.resolve("a-file"), "not a directory");
    assertEquals(
        2,
        run(
            "study",
            "pec",
            "--duration",
            "500ms",
            "--flow-rate",
            "0",
            "--provider-workers",
            "65",
            "--dir",
            "busy",
            "--spool",
            "a-file",
            "--keys",
            "hsm",
            "--pki",
            "pki"));
    String e = err.toString();
    for (String named :
        List.of(
            "--duration: each measured iteration lasts at least 1s",
            "--flow-rate 0.0: give 0.5 to 1000 messages per second",
            "--provider-workers 65: give 1 to 64",
            "--dir " + dir.resolve("busy") + ": holds files this study did not put there",
            "--spool " + dir.resolve("a-file") + ": is a file; give a directory",
            "--keys hsm")) {
      assertTrue(e.contains(named), "'" + named + "' in:\n" + e);
    }
    assertTrue(Files.exists(busy.resolve("mine.txt")), "the user's file is left alone");
    assertFalse(
        Files.exists(dir.resolve("pec.json")) || Files.exists(dir.resolve("pki")),
        "nothing run, nothing written");
  }
}
