package io.pkibench.server.pec;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The system's time moved ahead on demand: a provider's deadlines and retries come due when a test
 * says, instead of after a real wait, while the time still runs between two moves.
 */
final class OffsetClock implements InstantSource {
  private final AtomicLong aheadMillis = new AtomicLong();

  void moveAhead(Duration by) {
    aheadMillis.addAndGet(by.toMillis());
  }

  @Override
  public Instant instant() {
    return Instant.now().plusMillis(aheadMillis.get());
  }
}
