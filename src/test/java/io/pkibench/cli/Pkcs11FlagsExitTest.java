package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A missing PKCS#11 config is bad input: exit 2 before the run, no "failed" result written. */
class Pkcs11FlagsExitTest {
  @TempDir Path dir;

  @Test
  void run_missingPkcs11Config_exit2NamingTheFlagNothingWritten() {
    StringWriter out = new StringWriter(), err = new StringWriter();
    int code =
        InThisJvm.run(
            dir,
            out,
            err,
            "run",
            "sign",
            "-p",
            "alg=ecdsa-p256",
            "--keys",
            "pkcs11:nowhere.cfg",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x100ms",
            "--pki",
            "pki",
            "-o",
            "r.json");
    assertEquals(ExitCodes.USAGE, code, err.toString());
    assertTrue(err.toString().contains("nowhere.cfg"), err.toString());
    assertFalse(Files.exists(dir.resolve("r.json")), "nothing run, nothing written");
  }
}
