package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.server.ReadyLine;
import io.pkibench.server.openbao.BaoBinary;
import io.pkibench.session.ForkedSeries;
import io.pkibench.testing.TestKeys;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pkibench serve openbao}: bad flags in-process (exit 2, each named); the service in a child
 * JVM as a user starts it: its ready line names the owner-only token file, nothing it prints holds
 * the token, and SIGTERM stops bao too.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ServeOpenbaoTest {
  @TempDir Path dir;

  @Test
  void serveOpenbao_badFlags_exit2NamingEach() throws Exception {
    Files.createDirectories(dir.resolve("used"));
    Files.writeString(dir.resolve("used").resolve("x"), "");
    StringWriter err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true),
            Map.of(BaoBinary.ENV, dir.resolve("no-bao").toString()),
            InstantSource.system(),
            dir,
            false);
    assertEquals(
        2, Main.execute(ctx, "serve", "openbao", "--nodes", "0", "--dir", "used", "--port", "80"));
    String said = err.toString();
    assertTrue(said.contains("--nodes 0: give 1 to 7"), said);
    assertTrue(said.contains("--dir " + dir.resolve("used") + ": not empty"), said);
    assertTrue(said.contains("--port 80"), said);
    assertTrue(said.contains("bao was not found") && said.contains("./test installs it"), said);
  }

  @Test
  void serveOpenbao_inItsOwnJvm_readyLineNamesTheTokenFile_tokenNeverPrinted_sigtermStopsBao()
      throws Exception {
    BaoBinary.require(System.getenv());
    TestKeys fixture = TestKeys.in(dir);
    int port = 20_000 + (int) (ProcessHandle.current().pid() % 20_000);
    List<String> cmd = new ArrayList<>(ForkedSeries.thisJvm());
    cmd.addAll(
        List.of(
            "serve",
            "openbao",
            "--port",
            Integer.toString(port),
            "--dir",
            dir.resolve("bao").toString(),
            "--pki",
            fixture.pki.dir().toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> printed = new ArrayList<>();
    ReadyLine ready = null;
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream()));
      for (String l; ready == null && (l = lines.readLine()) != null; ) {
        printed.add(l);
        ready = ReadyLine.parse(l).orElse(null);
      }
      assertNotNull(ready, "serve openbao ended without its ready line: " + printed);
      assertEquals("openbao", ready.service());
      assertEquals("https://127.0.0.1:" + port, ready.url());
      Path tokenFile = Path.of(ready.tokenFile());
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
      String token = Files.readString(tokenFile).strip();
      assertTrue(token.length() > 10, "a token was written");
      for (String l : printed) assertFalse(l.contains(token), "the token was printed: " + l);
      assertTrue(ProcessHandle.of(ready.pid()).isPresent(), "bao runs");
    } finally {
      p.destroy(); // SIGTERM: the shutdown hook stops bao
      p.waitFor(30, TimeUnit.SECONDS);
    }
    long bao = ready.pid();
    for (int i = 0; i < 60 && ProcessHandle.of(bao).map(ProcessHandle::isAlive).orElse(false); i++)
      Thread.sleep(250);
    assertFalse(ProcessHandle.of(bao).map(ProcessHandle::isAlive).orElse(false), "bao stopped");
  }
}
