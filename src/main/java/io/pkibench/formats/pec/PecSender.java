package io.pkibench.formats.pec;

import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Function;

/**
 * A user's mail client, as the original's mailer: submits messages over SMTP to its provider and
 * records each one the provider acknowledged. A refusal or a dropped connection is returned, not
 * thrown, so that a run counts it and goes on.
 */
public final class PecSender {
  private final String host;
  private final int port;
  private final InstantSource clock;

  /**
   * The login of each sender address, or null to submit without one (refused by a provider for its
   * own users).
   */
  private final Function<String, PecLogin> logins;

  /**
   * Long enough for a provider that fsyncs a 32 MB message on a slow disk; short enough that a
   * stalled one is noticed.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  public PecSender(String host, int port, InstantSource clock) {
    this(host, port, clock, from -> null);
  }

  /** Logs in as {@code logins.apply(from)} before each submission. */
  public PecSender(String host, int port, InstantSource clock, Function<String, PecLogin> logins) {
    this.host = host;
    this.port = port;
    this.clock = clock;
    this.logins = logins;
  }

  /**
   * The outcome of one submission: acknowledged (the provider has it), or the provider's or
   * network's reason.
   */
  public record Outcome(SentMessage sent, String problem) {
    public boolean acknowledged() {
      return problem == null;
    }
  }

  public Outcome send(String from, List<String> to, String messageId, byte[] message) {
    try {
      SmtpClient.send(
          host, port, "pkibench-sender", from, to, message, TIMEOUT, logins.apply(from));
      return new Outcome(
          new SentMessage(messageId, from, to, message.length, clock.instant().toString()), null);
    } catch (SmtpClient.Refusal e) {
      return new Outcome(null, "refused: " + e.getMessage());
    } catch (IOException e) {
      return new Outcome(
          null,
          host
              + ":"
              + port
              + ": "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }
}
