package io.pkibench.server.pec;

import java.time.Duration;

/**
 * What bounds a provider's SMTP clients: a message's size, its recipients, connections in all and
 * from one address, how long a connection may be silent, and the deadlines of a command and of a
 * whole transaction (see {@link SmtpDeadlines}). Changed one at a time from {@link #DEFAULTS}, so
 * two adjacent numbers cannot be swapped unseen.
 */
public record SmtpLimits(
    int maxMessageBytes,
    int maxRecipients,
    int maxConnections,
    Duration idleTimeout,
    Duration commandDeadline,
    Duration transactionDeadline,
    int maxConnectionsPerAddress) {
  /** {@code serve pec}'s defaults. */
  public static final SmtpLimits DEFAULTS =
      new SmtpLimits(
          32 << 20,
          100,
          200,
          Duration.ofSeconds(60),
          Duration.ofSeconds(60),
          Duration.ofMinutes(10),
          100);

  public SmtpLimits withMaxMessageBytes(int bytes) {
    return new SmtpLimits(
        bytes,
        maxRecipients,
        maxConnections,
        idleTimeout,
        commandDeadline,
        transactionDeadline,
        maxConnectionsPerAddress);
  }

  public SmtpLimits withMaxRecipients(int recipients) {
    return new SmtpLimits(
        maxMessageBytes,
        recipients,
        maxConnections,
        idleTimeout,
        commandDeadline,
        transactionDeadline,
        maxConnectionsPerAddress);
  }

  public SmtpLimits withMaxConnections(int connections) {
    return new SmtpLimits(
        maxMessageBytes,
        maxRecipients,
        connections,
        idleTimeout,
        commandDeadline,
        transactionDeadline,
        maxConnectionsPerAddress);
  }

  public SmtpLimits withIdleTimeout(Duration timeout) {
    return new SmtpLimits(
        maxMessageBytes,
        maxRecipients,
        maxConnections,
        timeout,
        commandDeadline,
        transactionDeadline,
        maxConnectionsPerAddress);
  }

  public SmtpLimits withCommandDeadline(Duration deadline) {
    return new SmtpLimits(
        maxMessageBytes,
        maxRecipients,
        maxConnections,
        idleTimeout,
        deadline,
        transactionDeadline,
        maxConnectionsPerAddress);
  }

  public SmtpLimits withTransactionDeadline(Duration deadline) {
    return new SmtpLimits(
        maxMessageBytes,
        maxRecipients,
        maxConnections,
        idleTimeout,
        commandDeadline,
        deadline,
        maxConnectionsPerAddress);
  }

  public SmtpLimits withMaxConnectionsPerAddress(int connections) {
    return new SmtpLimits(
        maxMessageBytes,
        maxRecipients,
        maxConnections,
        idleTimeout,
        commandDeadline,
        transactionDeadline,
        connections);
  }
}
