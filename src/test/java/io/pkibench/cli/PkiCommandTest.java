package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PkiCommandTest {
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

  @Test
  void init_takesPkiLikeEveryOtherCommand_andItsOlderNameDir() {
    assertEquals(0, run("pki", "init", "--pki", "by-pki"), err.toString());
    assertTrue(Files.isRegularFile(dir.resolve("by-pki/pki.json")), "the PKI is where --pki said");
    assertEquals(0, run("pki", "init", "--dir", "by-dir"), err.toString());
    assertTrue(
        Files.isRegularFile(dir.resolve("by-dir/pki.json")), "--dir still names the directory");
    assertTrue(
        out.toString().contains("test PKI: " + dir.resolve("by-pki"))
            && out.toString().contains("test PKI: " + dir.resolve("by-dir")),
        out.toString());
  }
}
