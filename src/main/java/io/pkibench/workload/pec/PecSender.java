package io.pkibench.workload.pec;

import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import org.subethamail.smtp.client.SMTPException;
import org.subethamail.smtp.client.SmartClient;

/**
 * A user's mail client, as the original's mailer: submits messages over SMTP to its provider and
 * records each one the provider acknowledged. A refusal or a dropped connection is returned, not
 * thrown, so that a run counts it and goes on.
 */
public final class PecSender {
  private final String host;
  private final int port;
  private final InstantSource clock;

  public PecSender(String host, int port, InstantSource clock) {
    this.host = host;
    this.port = port;
    this.clock = clock;
  }

  /** The outcome of one submission: acknowledged (the provider has it), or the provider's or network's reason. */
  public record Outcome(SentMessage sent, String problem) {
    public boolean acknowledged() {
      return problem == null;
    }
  }

  public Outcome send(String from, List<String> to, String messageId, byte[] message) {
    try {
      SmartClient client = SmartClient.createAndConnect(host, port, "pkibench-sender");
      try {
        client.from(from);
        for (String rcpt : to) client.to(rcpt);
        client.dataStart();
        client.dataWrite(message, message.length);
        client.dataEnd();
      } finally {
        client.quit();
      }
      return new Outcome(new SentMessage(messageId, from, to, message.length, clock.instant().toString()), null);
    } catch (SMTPException e) {
      return new Outcome(null, "refused: " + e.getResponse().getCode() + " " + e.getResponse().getMessage());
    } catch (IOException e) {
      return new Outcome(null, host + ":" + port + ": " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }
}
