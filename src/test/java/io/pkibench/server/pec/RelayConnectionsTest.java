package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pkibench.formats.pec.SmtpClient;
import io.pkibench.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;
import org.subethamail.smtp.server.Session;
import org.subethamail.smtp.server.SessionHandler;

/**
 * The provider's kept connections to a peer, against SubEthaSMTP's server: many relays on one
 * connection, a closed or stale one replaced.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RelayConnectionsTest {
  private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
  private final AtomicInteger taken = new AtomicInteger();
  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger open = new AtomicInteger();

  /**
   * A server counting the connections messages came on (by the client's port) and the messages;
   * RCPT refused for {@code refuse@…}.
   */
  private SMTPServer peer(Duration idleTimeout) throws Exception {
    SMTPServer server =
        new SMTPServer.Builder()
            .bindAddress(InetAddress.getLoopbackAddress())
            .port(0)
            .connectionTimeout((int) idleTimeout.toMillis(), TimeUnit.MILLISECONDS)
            .sessionHandler(
                new SessionHandler() {
                  @Override
                  public SessionAcceptance accept(Session session) {
                    open.incrementAndGet();
                    return SessionAcceptance.success();
                  }

                  @Override
                  public void onSessionEnd(Session session) {
                    open.decrementAndGet();
                  }
                })
            .messageHandlerFactory(
                ctx ->
                    new MessageHandler() {
                      @Override
                      public void from(String from) {}

                      @Override
                      public void recipient(String recipient) throws RejectException {
                        if (recipient.startsWith("refuse@"))
                          throw new RejectException(550, "5.1.1 no such user");
                      }

                      @Override
                      public String data(java.io.InputStream data) throws IOException {
                        data.readAllBytes();
                        clientPorts.add(((InetSocketAddress) ctx.getRemoteAddress()).getPort());
                        taken.incrementAndGet();
                        return null;
                      }

                      @Override
                      public void done() {}
                    })
            .build();
    server.start();
    return server;
  }

  private RelayConnections relays() {
    return new RelayConnections(
        (host, port) ->
            SmtpClient.Connection.open(host, port, "pec1.test", Duration.ofSeconds(10), null, null),
        4,
        Duration.ofSeconds(10),
        now::get);
  }

  private static final byte[] MESSAGE =
      "From: a@pec1.test\r\nTo: b@pec2.test\r\n\r\nhello\r\n".getBytes(StandardCharsets.US_ASCII);

  @Test
  void send_fiveMessagesAndARefusalToOnePeer_allOnOneConnection() throws Exception {
    SMTPServer server = peer(Duration.ofSeconds(30));
    try (RelayConnections relays = relays()) {
      for (int i = 0; i < 3; i++)
        relays.send(
            "127.0.0.1", server.getPortAllocated(), "a@pec1.test", List.of("b@pec2.test"), MESSAGE);
      var refused =
          assertThrows(
              SmtpClient.Refusal.class,
              () ->
                  relays.send(
                      "127.0.0.1",
                      server.getPortAllocated(),
                      "a@pec1.test",
                      List.of("refuse@pec2.test"),
                      MESSAGE));
      assertEquals(550, refused.code());
      for (int i = 0; i < 2; i++)
        relays.send(
            "127.0.0.1", server.getPortAllocated(), "a@pec1.test", List.of("b@pec2.test"), MESSAGE);
      assertEquals(5, taken.get());
      assertEquals(
          1,
          clientPorts.size(),
          "one connection carried them all, the refusal reset on it: " + clientPorts);
    } finally {
      server.stop();
    }
  }

  @Test
  void send_peerClosedTheIdleConnection_sentOnAFreshOne() throws Exception {
    SMTPServer server = peer(Duration.ofMillis(500));
    try (RelayConnections relays = relays()) {
      relays.send(
          "127.0.0.1", server.getPortAllocated(), "a@pec1.test", List.of("b@pec2.test"), MESSAGE);
      Await.until(
          Duration.ofSeconds(20), "the server to close the idle connection", () -> open.get() == 0);
      relays.send(
          "127.0.0.1", server.getPortAllocated(), "a@pec1.test", List.of("b@pec2.test"), MESSAGE);
      assertEquals(2, taken.get(), "the second message taken once, on a new connection");
      assertEquals(2, clientPorts.size(), clientPorts.toString());
    } finally {
      server.stop();
    }
  }

  @Test
  void send_connectionIdlePastItsLimit_closedAndANewOneOpened() throws Exception {
    SMTPServer server = peer(Duration.ofSeconds(30));
    try (RelayConnections relays = relays()) {
      relays.send(
          "127.0.0.1", server.getPortAllocated(), "a@pec1.test", List.of("b@pec2.test"), MESSAGE);
      now.addAndGet(Duration.ofSeconds(11).toNanos());
      relays.send(
          "127.0.0.1", server.getPortAllocated(), "a@pec1.test", List.of("b@pec2.test"), MESSAGE);
      assertEquals(2, clientPorts.size(), "a connection idle 11 s is not reused: " + clientPorts);
      Await.until(
          Duration.ofSeconds(20),
          "the stale connection to be closed (QUIT), the new one kept",
          () -> open.get() == 1);
    } finally {
      server.stop();
    }
  }
}
