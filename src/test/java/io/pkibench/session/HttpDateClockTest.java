package io.pkibench.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.AgentRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/**
 * An agent's clock read against a server whose clock is off by a known amount: the offset found,
 * and flagged past the bound.
 */
@org.junit.jupiter.api.Timeout(30)
class HttpDateClockTest {

  /**
   * A keep-alive HTTP/1.1 server on loopback whose Date header is this machine's clock plus {@code
   * offsetMillis}.
   */
  static final class SkewedServer implements AutoCloseable {
    final ServerSocket socket;
    final Thread thread;

    SkewedServer(long offsetMillis, boolean sendDate) throws Exception {
      socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
      thread =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    while (!socket.isClosed()) {
                      try (Socket s = socket.accept()) {
                        BufferedReader in =
                            new BufferedReader(
                                new InputStreamReader(
                                    s.getInputStream(), StandardCharsets.ISO_8859_1));
                        OutputStream out = s.getOutputStream();
                        String line;
                        while ((line = in.readLine()) != null) {
                          if (!line.isEmpty())
                            continue; // the end of a request's headers (GET: no body)
                          String date =
                              DateTimeFormatter.RFC_1123_DATE_TIME.format(
                                  java.time.Instant.ofEpochMilli(
                                          System.currentTimeMillis() + offsetMillis)
                                      .atZone(ZoneOffset.UTC));
                          out.write(
                              ("HTTP/1.1 404 Not Found\r\n"
                                      + (sendDate ? "Date: " + date + "\r\n" : "")
                                      + "Content-Length: 0\r\n\r\n")
                                  .getBytes(StandardCharsets.ISO_8859_1));
                          out.flush();
                        }
                      } catch (Exception closed) {
                        // the next connection, or the end
                      }
                    }
                  });
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/");
    }

    @Override
    public void close() throws Exception {
      socket.close();
    }
  }

  @Test
  void measure_serverAheadByTwoAndAHalfSeconds_offsetFoundAndBeyondTheBound() throws Exception {
    try (SkewedServer server = new SkewedServer(2_500, true)) {
      AgentRecord.Clock clock = HttpDateClock.measure(server.uri(), null, InstantSource.system());
      assertTrue(
          Math.abs(clock.offsetMillis() - 2_500) <= clock.uncertaintyMillis() + 5,
          clock.toString());
      assertTrue(clock.uncertaintyMillis() < 500, "well under the header's second: " + clock);
      assertTrue(clock.beyondBound(), clock.toString());
    }
  }

  @Test
  void measure_serverInStep_offsetWithinTheBound() throws Exception {
    try (SkewedServer server = new SkewedServer(0, true)) {
      AgentRecord.Clock clock = HttpDateClock.measure(server.uri(), null, InstantSource.system());
      assertTrue(Math.abs(clock.offsetMillis()) <= clock.uncertaintyMillis() + 5, clock.toString());
      assertFalse(clock.beyondBound(), clock.toString());
      assertEquals(server.uri().toString(), clock.reference());
    }
  }

  @Test
  void measure_noDateHeader_notMeasuredSayingWhy() throws Exception {
    try (SkewedServer server = new SkewedServer(0, false)) {
      AgentRecord.Clock clock = HttpDateClock.measure(server.uri(), null, InstantSource.system());
      assertNull(clock.offsetMillis());
      assertEquals(server.uri() + " sends no Date header", clock.note());
    }
  }
}
