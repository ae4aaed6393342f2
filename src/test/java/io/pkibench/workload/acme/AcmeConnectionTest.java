package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The ACME client's HTTP/1.1 against a CA that is a stranger: a scripted server on loopback answers
 * each request with the next of its answers, as bytes, whatever they are.
 */
class AcmeConnectionTest {
  /** One answer: its bytes, and whether the server closes the connection after it. */
  record Answer(String bytes, boolean thenClose) {
    static Answer of(String bytes) {
      return new Answer(bytes, false);
    }
  }

  /** Answers requests in turn, one connection at a time; counts connections and requests. */
  static final class ScriptedServer implements AutoCloseable {
    final ServerSocket socket;
    final BlockingQueue<Answer> answers = new LinkedBlockingQueue<>();
    final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
    final AtomicInteger connections = new AtomicInteger();
    final Thread thread;

    ScriptedServer(List<Answer> script) throws IOException {
      answers.addAll(script);
      socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
      thread = Thread.ofPlatform().daemon().start(this::serve);
    }

    URI url(String path) {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
    }

    private void serve() {
      while (!socket.isClosed()) {
        try (Socket s = socket.accept()) {
          connections.incrementAndGet();
          s.setSoTimeout(10_000);
          InputStream in = s.getInputStream();
          while (true) {
            String head = head(in);
            if (head == null) break;
            requests.add(head);
            Answer a = answers.poll(10, TimeUnit.SECONDS);
            if (a == null) break;
            s.getOutputStream().write(a.bytes().getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            if (a.thenClose()) break;
          }
        } catch (IOException | InterruptedException e) {
          // the test closed the server, or the client its connection
        }
      }
    }

    /** A request's head (and its body, skipped by its Content-Length); null at the end. */
    private static String head(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        head.write(b);
        String h = head.toString(StandardCharsets.ISO_8859_1);
        if (h.endsWith("\r\n\r\n")) {
          for (String line : h.split("\r\n"))
            if (line.toLowerCase().startsWith("content-length:"))
              in.readNBytes(Integer.parseInt(line.substring(15).strip()));
          return h;
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  private static AcmeConnection connection(ScriptedServer server) {
    return new AcmeConnection(server.url("/dir"), null, Duration.ofSeconds(5));
  }

  @Test
  void chunkedAndFixedBodies_oneKeptAliveConnection_hostHeaderNamesTheOrigin() throws Exception {
    try (ScriptedServer server =
            new ScriptedServer(
                List.of(
                    Answer.of(
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nReplay-Nonce: abc\r\n\r\n"
                            + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nTrailer: x\r\n\r\n"),
                    Answer.of(
                        "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nLocation: /o/1\r\n\r\n{}")));
        AcmeConnection c = connection(server)) {
      AcmeConnection.Response first =
          c.send("POST", server.url("/new"), "{}".getBytes(), "application/jose+json", "*/*");
      assertEquals(200, first.status());
      assertEquals("hello, world", first.bodyText());
      assertEquals("abc", first.header("replay-nonce"));
      AcmeConnection.Response second = c.send("GET", server.url("/dir"), null, null, "*/*");
      assertEquals(201, second.status());
      assertEquals("/o/1", second.header("location"));
      assertEquals("{}", second.bodyText());
      assertEquals(1, server.connections.get(), "both on one kept-alive connection");
      assertEquals(1, c.opened());
      String head = server.requests.take();
      assertTrue(head.startsWith("POST /new HTTP/1.1\r\n"), head);
      assertTrue(
          head.contains("\r\nHost: 127.0.0.1:" + server.socket.getLocalPort() + "\r\n"), head);
      assertTrue(head.contains("\r\nContent-Length: 2\r\n"), head);
    }
  }

  @Test
  void anIdleConnectionTheCaClosed_isOpenedAgainOnce() throws Exception {
    try (ScriptedServer server =
            new ScriptedServer(
                List.of(
                    new Answer("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", true),
                    Answer.of("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb")));
        AcmeConnection c = connection(server)) {
      assertEquals("a", c.send("GET", server.url("/x"), null, null, "*/*").bodyText());
      Thread.sleep(100); // the server's close reaches the client
      assertEquals("b", c.send("GET", server.url("/x"), null, null, "*/*").bodyText());
      assertEquals(2, c.opened());
      assertEquals(2, server.connections.get());
    }
  }

  @Test
  void hostileAnswers_eachAnErrorNamingWhatWasWrong() throws Exception {
    List<List<String>> cases =
        List.of(
            List.of("HTTP/1.1 200 OK\r\nContent-Length: 2097152\r\n\r\n", "over the 1048576"),
            List.of("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", "-5 bytes long"),
            List.of("HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n", "is no number"),
            List.of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
            List.of(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n"
                    + "x".repeat(1000)
                    + "\r\n"
                    + "100000\r\n",
                "closed the connection"),
            List.of("HTTP/1.1 200 OK\r\n" + "X: y\r\n".repeat(150) + "\r\n", "over 100 headers"),
            List.of("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", "without a name"),
            List.of("SSH-2.0-OpenSSH\r\n", "not an HTTP/1.x status"),
            List.of("HTTP/1.1 2xx OK\r\n\r\n", "has no status"),
            List.of("HTTP/1.1 100 Continue\r\n\r\n".repeat(50), "over 8 interim"),
            List.of("HTTP/1.1 200 OK\r\nX: " + "a".repeat(9000) + "\r\n\r\n", "line over 8192"));
    for (List<String> c : cases) {
      try (ScriptedServer server = new ScriptedServer(List.of(new Answer(c.get(0), true)));
          AcmeConnection connection = connection(server)) {
        IOException e =
            assertThrows(
                IOException.class,
                () -> connection.send("GET", server.url("/x"), null, null, "*/*"),
                c.get(1));
        assertTrue(e.getMessage().contains(c.get(1)), c.get(1) + " / " + e.getMessage());
        assertTrue(
            !e.getMessage().contains("\u001b"), "escaped, if it quotes the CA: " + e.getMessage());
      }
    }
  }

  @Test
  void aCaTricklingItsAnswer_isCutOffAtThreeTimesTheTimeout() throws Exception {
    try (ServerSocket trickler = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread t =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (Socket s = trickler.accept()) {
                      s.getOutputStream().write("HTTP/1.1 200 OK\r\n".getBytes());
                      for (int i = 0; i < 100; i++) { // a header byte every 100 ms, never the end
                        s.getOutputStream().write('X');
                        s.getOutputStream().flush();
                        Thread.sleep(100);
                      }
                    } catch (IOException | InterruptedException e) {
                      // the client gave up: as it should
                    }
                  });
      URI url = URI.create("http://127.0.0.1:" + trickler.getLocalPort() + "/x");
      long start = System.nanoTime();
      try (AcmeConnection c = new AcmeConnection(url, null, Duration.ofMillis(500))) {
        IOException e =
            assertThrows(IOException.class, () -> c.send("GET", url, null, null, "*/*"));
        assertTrue(e.getMessage().contains("to send one answer"), e.getMessage());
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(millis >= 1_400 && millis < 5_000, "cut off after about 1.5 s: " + millis + " ms");
      t.interrupt();
    }
  }

  @Test
  void aUrlOnAnotherOrigin_isNotFollowed_noConnectionMade() throws Exception {
    try (ScriptedServer server = new ScriptedServer(List.of());
        AcmeConnection c = connection(server)) {
      for (String elsewhere :
          List.of(
              "http://127.0.0.2:" + server.socket.getLocalPort() + "/x",
              "https://127.0.0.1:" + server.socket.getLocalPort() + "/x",
              "http://127.0.0.1:" + (server.socket.getLocalPort() ^ 1) + "/x")) {
        IOException e =
            assertThrows(
                IOException.class, () -> c.send("GET", URI.create(elsewhere), null, null, "*/*"));
        assertTrue(e.getMessage().contains("another origin"), e.getMessage());
      }
      assertEquals(0, server.connections.get());
    }
  }
}
