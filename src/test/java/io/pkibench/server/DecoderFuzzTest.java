package io.pkibench.server;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A short run of each decoder's fuzz target (bench/decoder-fuzz runs a million each): no violation,
 * and the inputs reached both sides — some accepted, some refused — so the mutations neither all
 * pass nor all fail at the first byte.
 */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to the servers it fuzzes: a hang fails, said as one
class DecoderFuzzTest {

  @ParameterizedTest
  @ValueSource(strings = {"signer-json", "tsa", "ocsp", "result", "smtp"})
  void shortRun_everyInputAnsweredInItsProtocolsTerms(String target, @TempDir Path dir)
      throws Exception {
    DecoderFuzz.Outcome o = DecoderFuzz.run(target, 600, 11, dir);
    assertNull(o.violation(), o.toString());
    String accepted =
        switch (target) {
          case "signer-json" -> "200";
          case "tsa", "ocsp" -> "status 0";
          case "smtp" -> "250";
          default -> "read and rendered";
        };
    assertTrue(o.answers().getOrDefault(accepted, 0L) > 0, "some inputs accepted: " + o.answers());
    assertTrue(
        o.answers().keySet().stream().anyMatch(a -> !a.equals(accepted)),
        "some refused: " + o.answers());
  }
}
