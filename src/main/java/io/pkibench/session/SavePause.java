package io.pkibench.session;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A pause in the middle of a result's save, for the tests that signal a run there: announced by
 * creating a marker file, ended when the test deletes it or after {@link #LONGEST}. Off (a no-op)
 * unless a marker is named; never set by pkibench itself.
 */
record SavePause(Path marker) {
  /** The longest a save waits for the test, so that a test that dies cannot hang a run. */
  static final Duration LONGEST = Duration.ofSeconds(20);

  static SavePause of(String marker) {
    return new SavePause(marker == null || marker.isBlank() ? null : Path.of(marker));
  }

  void pause() {
    if (marker == null) return;
    try {
      Files.writeString(marker, "saving a level\n");
      long deadline = System.nanoTime() + LONGEST.toNanos();
      while (Files.exists(marker) && System.nanoTime() - deadline < 0) Thread.sleep(10);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
