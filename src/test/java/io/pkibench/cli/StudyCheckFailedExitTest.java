package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A study whose steps all ran but whose post-run check failed ends with exit code 4 ({@link
 * ExitCodes#CHECK_FAILED}), not 0 nor 1: the pec study, a certified message deleted from its
 * recipient's Maildir while the flow runs, is one message lost to the reliability check.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // a study talks to its provider JVMs: a hang fails
class StudyCheckFailedExitTest {
  @TempDir Path dir;

  /** The first certified envelope (posta-certificata) found in a recipient's new/, or null. */
  private static Path anEnvelope(Path mailboxes) throws Exception {
    if (!Files.isDirectory(mailboxes)) return null;
    try (Stream<Path> files = Files.walk(mailboxes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (!f.getParent().getFileName().toString().equals("new")) continue;
        String text;
        try {
          text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        } catch (Exception e) {
          continue; // moved meanwhile
        }
        if (text.contains("\r\nX-Trasporto: posta-certificata\r\n")) return f;
      }
    }
    return null;
  }

  @Test
  void studyPec_aDeliveredMessageLost_exit4WithTheReliabilityCheckFailed() throws Exception {
    Path work = dir.resolve("pec-study");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    // a reader that loses one message: the first envelope delivered, deleted once it is there
    AtomicReference<Path> deleted = new AtomicReference<>();
    Thread loser =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try {
                    while (deleted.get() == null) {
                      Path envelope = anEnvelope(work.resolve("mailboxes"));
                      if (envelope != null && Files.deleteIfExists(envelope)) deleted.set(envelope);
                      else Thread.sleep(50);
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } catch (Exception e) {
                    deleted.compareAndSet(null, Path.of("(failed: " + e + ")"));
                  }
                });
    int exit;
    try {
      exit =
          Main.execute(
              ctx,
              new String[] {
                "study",
                "pec",
                "--smoke",
                "--no-search",
                "--no-sweep",
                "--no-paths", // the check is the flow's: the in-JVM paths would only add a minute
                "--flow-rate",
                "10",
                "--dir",
                work.toString(),
                "--pki",
                dir.resolve("pki").toString()
              });
    } finally {
      loser.interrupt();
      loser.join(5000);
    }
    assertTrue(
        deleted.get() != null && Files.notExists(deleted.get()),
        "the test lost one delivered envelope: " + deleted.get());
    assertEquals(
        ExitCodes.CHECK_FAILED,
        exit,
        "a study whose reliability check failed; out: " + out + "\nerr: " + err);
    assertTrue(
        out.toString().contains(" 1 lost, 0 duplicated"),
        "the check says which: one lost; out: " + out);
    assertTrue(
        out.toString().contains("paths left out (--no-paths)")
            && !err.toString().contains("signing_path")
            && !err.toString().contains("verification_path"),
        "--no-paths measured no path and says so: " + out);
  }
}
