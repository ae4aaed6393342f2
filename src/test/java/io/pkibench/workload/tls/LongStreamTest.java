package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.server.ReadyLine;
import io.pkibench.session.ForkedSeries;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 1 GiB stream through {@code serve tlsecho} whose heap and direct memory are capped far below
 * it: memory per connection is bounded.
 */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit =
        java.util.concurrent.TimeUnit.MINUTES) // talks to an echo server: a hang fails, said as one
class LongStreamTest {
  @TempDir Path dir;

  /** Where the server says its plain port is, in the line before its ready line. */
  static final Pattern PLAIN_AT = Pattern.compile("plain TCP at (tcp://[0-9.]+:[0-9]+)");

  @Test
  void oneGibibyteStream_throughA64MegabyteServer_acknowledgedWhole() throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    List<String> cmd = new ArrayList<>(ForkedSeries.thisJvm());
    cmd.addAll(1, List.of("-Xmx48m", "-XX:MaxDirectMemorySize=16m"));
    cmd.addAll(
        List.of(
            "serve",
            "tlsecho",
            "--tls",
            "openssl",
            "--port",
            "0",
            "--plain-port",
            "0", // both ports the server's choice, said before its ready line
            "--pki",
            fixture.pki.dir().toString()));
    Process server = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream()))) {
      ReadyLine ready = null;
      String plainUrl = null;
      for (String line; ready == null && (line = out.readLine()) != null; ) {
        Matcher plain = PLAIN_AT.matcher(line);
        if (plain.find()) plainUrl = plain.group(1);
        ready = ReadyLine.parse(line).orElse(null);
      }
      assertTrue(ready != null, "the server never said it was ready");
      assertTrue(plainUrl != null, "the server said no plain port before it was ready");
      int frames = 16_384; // 64 KiB each: 1 GiB
      try (Workload w =
          fixture.workload(
              new TlsWorkload.Factory(TlsWorkload.Kind.STREAM),
              Map.of("target", ready.url(), "engine", "openssl", "size", "64k", "ack", "256"))) {
        Operation op = w.newOperation(0);
        for (int i = 0; i < frames; i++)
          op.execute(); // every 256th checks the server's count and CRC-32
      }
      String json = TlsEchoTest.counters(plainUrl);
      assertEquals(frames, TlsEchoTest.counter(json, "transactions"), json);
      assertTrue(TlsEchoTest.counter(json, "bytesIn") >= (1L << 30), json);
      assertTrue(server.isAlive(), "the server is still up");
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
