package io.pkibench.server.pec;

import io.pkibench.formats.pec.SmtpClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The provider's open SMTP connections to its peers, kept between relays: a relay takes an idle one
 * (or opens one), sends, and gives it back. Each relay over a new connection paid a TCP connection,
 * EHLO, STARTTLS with a mutual TLS handshake (an RSA signature and verifications on both sides) and
 * QUIT for one message; a busy peer now gets many on one. A connection idle past {@code maxIdle} is
 * closed rather than reused (the peer cuts a silent client at its command deadline); one that fails
 * on reuse (the peer closed it meanwhile) is replaced by a fresh one, once.
 */
final class RelayConnections implements AutoCloseable {
  /** What a relay opens a connection with. */
  @FunctionalInterface
  interface Opener {
    SmtpClient.Connection open(String host, int port) throws IOException;
  }

  private record Idle(SmtpClient.Connection connection, long sinceNanos) {}

  private final Opener opener;
  private final int maxIdlePerPeer;
  private final long maxIdleNanos;
  private final LongSupplier nanoTime;
  private final Map<String, Deque<Idle>> idle = new HashMap<>();
  private boolean closed;

  RelayConnections(Opener opener, int maxIdlePerPeer, Duration maxIdle, LongSupplier nanoTime) {
    this.opener = opener;
    this.maxIdlePerPeer = maxIdlePerPeer;
    this.maxIdleNanos = maxIdle.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * One message to the peer at {@code host:port}; returns when it answered 250 to its end (see
   * {@link SmtpClient#send}).
   */
  void send(String host, int port, String from, List<String> to, byte[] message)
      throws IOException {
    String peer = host + ":" + port;
    SmtpClient.Connection reused = take(peer);
    if (reused != null) {
      try {
        reused.transaction(from, to, message);
        giveBack(peer, reused);
        return;
      } catch (SmtpClient.Refusal e) {
        if (!reused.broken()) {
          giveBack(peer, reused);
          throw e;
        }
        reused
            .close(); // 421: the peer closed it while idle (its idle timeout said so): once more on
        // a fresh connection
      } catch (IOException e) {
        reused
            .close(); // closed by the peer while idle, most likely: once more on a fresh connection
      }
    }
    SmtpClient.Connection fresh = opener.open(host, port);
    try {
      fresh.transaction(from, to, message);
    } catch (IOException | RuntimeException e) {
      if (fresh.broken()) fresh.close();
      else giveBack(peer, fresh);
      throw e;
    }
    giveBack(peer, fresh);
  }

  private SmtpClient.Connection take(String peer) throws IOException {
    while (true) {
      Idle i;
      synchronized (this) {
        Deque<Idle> q = idle.get(peer);
        i = q == null ? null : q.pollLast(); // the most recently used: the likeliest still open
      }
      if (i == null) return null;
      if (nanoTime.getAsLong() - i.sinceNanos() < maxIdleNanos) return i.connection();
      i.connection().close();
    }
  }

  private void giveBack(String peer, SmtpClient.Connection c) throws IOException {
    if (c.broken()) {
      c.close();
      return;
    }
    synchronized (this) {
      Deque<Idle> q = idle.computeIfAbsent(peer, k -> new ArrayDeque<>());
      if (!closed && q.size() < maxIdlePerPeer) {
        q.addLast(new Idle(c, nanoTime.getAsLong()));
        return;
      }
    }
    c.close();
  }

  /**
   * Closes the idle connections (QUIT); those in use are closed by their relay as it gives them
   * back.
   */
  @Override
  public void close() {
    List<Idle> all = new ArrayList<>();
    synchronized (this) {
      closed = true;
      idle.values().forEach(all::addAll);
      idle.clear();
    }
    for (Idle i : all) {
      try {
        i.connection().close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
