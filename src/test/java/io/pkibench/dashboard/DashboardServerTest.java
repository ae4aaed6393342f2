package io.pkibench.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The dashboard's server against hostile clients, over real sockets on loopback. */
@Timeout(60)
class DashboardServerTest {
  private final List<Socket> sockets = new ArrayList<>();
  private DashboardServer server;

  /** A page of {@code bytes}, the JSON a fixed object: what is served does not matter here. */
  private void start(int pageBytes, DashboardServer.Limits limits) throws IOException {
    byte[] page = new byte[pageBytes];
    Arrays.fill(page, (byte) 'x');
    server =
        DashboardServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            "127.0.0.1",
            new DashboardServer.Pages() {
              @Override
              public byte[] page() {
                return page;
              }

              @Override
              public byte[] live() {
                return "{\"ended\":false}".getBytes(StandardCharsets.UTF_8);
              }
            },
            limits);
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) s.close();
    if (server != null) server.close();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
    s.setSoTimeout(10_000);
    sockets.add(s);
    return s;
  }

  /** Sends {@code head} and reads the whole answer (the server closes after one). */
  private String exchange(String head) throws IOException {
    Socket s = connect();
    s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
    return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
  }

  private String get(String path, String host) throws IOException {
    return exchange("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  }

  @Test
  void get_boundAddressAndLocalhost_servesPageAndJson() throws IOException {
    start(100, DashboardServer.Limits.DEFAULT);
    String page = get("/", "127.0.0.1:" + server.port());
    assertTrue(page.startsWith("HTTP/1.1 200 "), page);
    assertTrue(page.endsWith("x".repeat(100)), page);
    assertTrue(page.contains("Content-Security-Policy: default-src 'none'"), page);
    assertTrue(get("/live.json", "localhost:" + server.port()).contains("{\"ended\":false}"));
    assertTrue(get("/elsewhere", "localhost:" + server.port()).startsWith("HTTP/1.1 404 "));
    assertEquals("http://127.0.0.1:" + server.port() + "/", server.url());
  }

  @Test
  void request_otherThanGet_answered405() throws IOException {
    start(100, DashboardServer.Limits.DEFAULT);
    for (String method : List.of("POST", "PUT", "DELETE", "HEAD", "OPTIONS")) {
      String answer =
          exchange(
              method
                  + " / HTTP/1.1\r\nHost: 127.0.0.1:"
                  + server.port()
                  + "\r\nContent-Length: 0\r\n\r\n");
      assertTrue(answer.startsWith("HTTP/1.1 405 "), method + ": " + answer);
      assertTrue(answer.contains("\r\nAllow: GET\r\n"), answer);
      assertTrue(!answer.contains("xxxx"), "no page in a refusal: " + answer);
    }
  }

  @Test
  void hostHeader_notTheBoundAddress_refused421() throws IOException {
    start(100, DashboardServer.Limits.DEFAULT);
    int port = server.port();
    // A page of another site whose name was rebound to 127.0.0.1 sends its own name as the host.
    for (String host :
        List.of("evil.example:" + port, "evil.example", "127.0.0.1:" + (port + 1), "127.0.0.1")) {
      String answer = get("/", host);
      assertTrue(answer.startsWith("HTTP/1.1 421 "), host + ": " + answer);
      assertTrue(!answer.contains("xxxx"), answer);
    }
    String none = exchange("GET / HTTP/1.0\r\n\r\n");
    assertTrue(none.startsWith("HTTP/1.1 421 "), "no Host at all: " + none);
    String two =
        exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nHost: evil.example\r\n\r\n");
    assertTrue(two.startsWith("HTTP/1.1 421 "), "two Hosts: " + two);
  }

  @Test
  void clients_pastTheCap_answered503_thenServedOnceASlotFrees() throws Exception {
    start(100, new DashboardServer.Limits(16, Duration.ofSeconds(3)));
    List<Socket> silent = new ArrayList<>();
    for (int i = 0; i < 16; i++)
      silent.add(connect()); // connected, nothing sent: each holds a slot
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (server.clientsHeld() < 16 && System.nanoTime() < deadline) Thread.sleep(20);
    assertEquals(16, server.clientsHeld());
    String refused = get("/", "127.0.0.1:" + server.port());
    assertTrue(refused.startsWith("HTTP/1.1 503 "), refused);
    assertTrue(refused.contains("at most 16"), refused);
    for (Socket s : silent) s.close();
    deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
    while (server.clientsHeld() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
    assertEquals(0, server.clientsHeld(), "slots freed once their clients left");
    assertTrue(get("/", "127.0.0.1:" + server.port()).startsWith("HTTP/1.1 200 "));
  }

  @Test
  void reader_thatNeverReads_isClosedAtTheDeadline_andHoldsNothingAfter() throws Exception {
    // 8 MB: far past what the sockets' buffers take, so the server's write blocks on this reader.
    start(8 << 20, new DashboardServer.Limits(16, Duration.ofSeconds(2)));
    List<Socket> stalled = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Socket s = connect();
      s.setReceiveBufferSize(4096);
      s.getOutputStream()
          .write(
              ("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + server.port() + "\r\n\r\n")
                  .getBytes(StandardCharsets.ISO_8859_1));
      stalled.add(s);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (server.clientsHeld() < 4 && System.nanoTime() < deadline) Thread.sleep(20);
    assertEquals(
        4, server.clientsHeld(), "the stalled readers hold their slots while writes block");
    Thread.sleep(3_000); // past the 2 s deadline
    assertEquals(0, server.clientsHeld(), "closed at the deadline, not held while they stall");
    // What reached the stalled reader is cut short: the server closed the exchange.
    Socket first = stalled.get(0);
    first.setSoTimeout(2_000);
    InputStream in = first.getInputStream();
    long got = 0;
    boolean ended = false;
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    byte[] buffer = new byte[65536];
    try {
      for (int n; System.nanoTime() < until; got += n) {
        n = in.read(buffer);
        if (n < 0) {
          ended = true;
          break;
        }
      }
    } catch (SocketTimeoutException stalledStill) {
      // not ended: asserted below
    } catch (IOException reset) {
      ended = true; // a reset is as good as an end: the server let go
    }
    assertTrue(ended, "the server ended the exchange; read " + got + " bytes");
    assertTrue(got < (8 << 20), "the answer was cut, not held for the reader: " + got);
    assertTrue(get("/live.json", "127.0.0.1:" + server.port()).startsWith("HTTP/1.1 200 "));
  }

  @Test
  void head_pastItsLimit_answered431() throws IOException {
    start(100, DashboardServer.Limits.DEFAULT);
    String answer =
        exchange(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:"
                + server.port()
                + "\r\nX-Pad: "
                + "a".repeat(DashboardServer.MAX_HEAD_BYTES)
                + "\r\n\r\n");
    assertTrue(answer.startsWith("HTTP/1.1 431 "), answer);
  }
}
