package io.pkibench.server.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Await;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The signer's pending work: bounded by count and bytes, refusals counted, each token used once,
 * expiry on a timer.
 */
class PendingTokensTest {
  @Test
  void bounds_refusals_singleUse_andExpiryWithoutAnyRequest() throws Exception {
    AtomicLong now = new AtomicLong();
    try (PendingTokens<String> tokens =
        new PendingTokens<>(new PendingTokens.Limits(2, 1000, Duration.ofMillis(200)), now::get)) {
      assertTrue(tokens.put("a", "work a", 600));
      assertFalse(tokens.put("b", "work b", 600), "past the byte budget");
      assertTrue(tokens.put("c", "work c", 100));
      assertFalse(tokens.put("d", "work d", 1), "past the count");
      assertEquals(2, tokens.refused());
      assertInstanceOf(PendingTokens.Taken.Found.class, tokens.take("a"));
      assertInstanceOf(PendingTokens.Taken.Unknown.class, tokens.take("a"), "used once");
      assertEquals(100, tokens.bytes(), "a's share freed by its take");

      now.addAndGet(
          Duration.ofSeconds(1).toNanos()); // c is now past its lifetime; nothing asks for it
      Await.until(Duration.ofSeconds(10), "the timer to expire it", () -> tokens.size() == 0);
      assertEquals(0, tokens.bytes());
      assertInstanceOf(PendingTokens.Taken.Unknown.class, tokens.take("c"));

      assertTrue(tokens.put("e", "work e", 10));
      now.addAndGet(Duration.ofMillis(150).toNanos());
      assertEquals(
          1, tokens.retryAfterSeconds(), "about 50 ms left, said as the next whole second");
      now.addAndGet(Duration.ofMillis(100).toNanos());
      // expired: never handed out (Expired, or Unknown if the timer swept it first: its sweeps run
      // on their own)
      assertFalse(
          tokens.take("e") instanceof PendingTokens.Taken.Found,
          "an expired token is never handed out");
    }
  }

  @Test
  void take_pastItsLifetimeBeforeAnySweep_saysExpired() {
    AtomicLong now = new AtomicLong();
    // a 10-minute lifetime: the timer's first sweep is a minute away, so nothing but take decides
    // here
    try (PendingTokens<String> tokens =
        new PendingTokens<>(new PendingTokens.Limits(2, 1000, Duration.ofMinutes(10)), now::get)) {
      assertTrue(tokens.put("e", "work e", 10));
      now.addAndGet(Duration.ofMinutes(10).plusNanos(1).toNanos());
      assertInstanceOf(PendingTokens.Taken.Expired.class, tokens.take("e"));
    }
  }
}
