package io.pkibench.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Supplier;

/**
 * How {@code run --agents N --local} starts its agents together although their JVMs start at their
 * own pace (17 s apart was seen on a loaded two-core machine, past any fixed head start worth
 * waiting): each agent, its setup done, writes {@code SIGNAL.readyK} and waits for {@code SIGNAL};
 * once every agent still alive is ready, the parent writes into {@code SIGNAL} one start time for
 * all, a moment ahead. The starter k6's Kubernetes operator runs, as two files.
 */
final class StartSignal {
  /**
   * How long an agent waits for the start once it is ready: the parent gave up or died if it takes
   * longer.
   */
  static final Duration AGENT_WAITS = Duration.ofMinutes(5);

  /** Between the last agent ready and the start: time for every agent to see the file. */
  static final Duration HEAD_START = Duration.ofSeconds(1);

  private static final long POLL_MILLIS = 20;

  private StartSignal() {}

  static Path readyFile(Path signal, int agent) {
    return signal.resolveSibling(signal.getFileName() + ".ready" + agent);
  }

  /** The agent's side: says it is ready, then waits for the one start time. */
  static Supplier<Instant> agent(Path signal, int agent, InstantSource clock) {
    return () -> {
      try {
        Files.writeString(readyFile(signal, agent), clock.instant().toString());
        long until = clock.millis() + AGENT_WAITS.toMillis();
        while (!Files.exists(signal)) {
          if (clock.millis() > until) {
            throw new IllegalStateException(
                "no start time in "
                    + signal
                    + " "
                    + AGENT_WAITS.toMinutes()
                    + " min after this agent was ready;"
                    + " the process that started the agents is gone");
          }
          Thread.sleep(POLL_MILLIS);
        }
        return Instant.parse(Files.readString(signal).strip());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot signal readiness beside " + signal, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the start", e);
      }
    };
  }

  /**
   * The parent's side: waits until each agent of {@code agents} is ready or has exited, at most
   * {@code within}, then writes the start time into {@code signal} (atomically: an agent never
   * reads half of it). Returns it.
   */
  static Instant startWhenReady(
      Path signal, List<Process> agents, Duration within, InstantSource clock)
      throws IOException, InterruptedException {
    long until = clock.millis() + within.toMillis();
    while (clock.millis() < until) {
      boolean all = true;
      for (int k = 1; k <= agents.size(); k++) {
        if (agents.get(k - 1).isAlive() && !Files.exists(readyFile(signal, k))) all = false;
      }
      if (all) break;
      Thread.sleep(POLL_MILLIS);
    }
    Instant start = clock.instant().plus(HEAD_START);
    Path tmp = signal.resolveSibling(signal.getFileName() + ".tmp");
    Files.writeString(tmp, start.toString());
    Files.move(tmp, signal, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return start;
  }
}
