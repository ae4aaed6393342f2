package io.pkibench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HlogFileTest {
  /**
   * A full disk (the kernel's ENOSPC, from /dev/full) names the file that could not be written, not
   * just "No space left on device". (The CLI test planted a link to /dev/full at the log's path; a
   * link there is now refused.)
   */
  @Test
  void new_onAFullDisk_namesTheFileThatCouldNotBeWritten() throws Exception {
    Path file = Path.of("runs", "full.hlog");
    var e =
        assertThrows(
            UncheckedIOException.class,
            () ->
                new HlogFile(
                    file, new FileOutputStream("/dev/full"), Instant.EPOCH, "pkibench run"));
    assertEquals("cannot write interval log " + file + ": No space left on device", e.getMessage());
  }

  @Test
  void new_linkAtItsPath_refusedNamingThePathAndTheVictimUntouched(@TempDir Path dir)
      throws Exception {
    Path victim =
        Files.writeString(
            Files.createDirectories(dir.resolve("elsewhere")).resolve("victim"), "kept\n");
    Path hlog = Files.createSymbolicLink(dir.resolve("r.hlog"), victim);
    var e =
        assertThrows(
            UncheckedIOException.class, () -> new HlogFile(hlog, Instant.EPOCH, "pkibench run"));
    assertTrue(
        e.getMessage()
            .startsWith(
                "cannot write interval log "
                    + hlog
                    + ": "
                    + hlog
                    + " is a symbolic link to "
                    + victim),
        e.getMessage());
    assertEquals("kept\n", Files.readString(victim));
  }
}
