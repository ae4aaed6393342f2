package io.pkibench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.TlsContexts;
import io.pkibench.session.ForkedSeries;
import io.pkibench.study.ServiceProcess;
import io.pkibench.testing.Await;
import io.pkibench.testing.TestKeys;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slowloris against real services in their own JVMs, the request time limit lowered from 60 s to 2
 * s for the test (the JDK reads it once per process, in seconds): slow and silent connections do
 * not stop a normal request from being answered at once, and the server cuts every one of them off
 * once the limit has passed — plain HTTP (`serve tsa`) and TLS (`serve signer`, including half a
 * ClientHello).
 */
@org.junit.jupiter.api.Timeout(
    value = 3,
    unit =
        java.util.concurrent.TimeUnit.MINUTES) // talks to service JVMs: a hang fails, said as one
class SlowClientsTest {
  private static final int LIMIT_SECONDS = 2;

  @Test
  void plainHttp_slowHeaders_normalRequestServed_andTheSlowCutOff(@TempDir Path dir)
      throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    try (ServiceProcess tsa = start("tsa", fixture)) {
      URI url = URI.create(tsa.url());
      List<Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < 200; i++) {
          Socket s = new Socket(url.getHost(), url.getPort());
          // headers that never end: a line every half second would not help it either
          s.getOutputStream()
              .write(
                  "POST /tsa HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          slow.add(s);
        }
        for (int i = 0; i < 100; i++)
          slow.add(new Socket(url.getHost(), url.getPort())); // connected, silent

        assertAnsweredBeside(slow, HttpClient.newHttpClient(), url.resolve("/tsa"), 405);
      } finally {
        for (Socket s : slow) s.close();
      }
    }
  }

  @Test
  void tls_halfHandshakesAndSlowHeaders_normalRequestServed_andTheSlowCutOff(@TempDir Path dir)
      throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    try (ServiceProcess signer = start("signer", fixture)) {
      URI url = URI.create(signer.url());
      var tls = TlsContexts.trusting(fixture.pki.certificate("root-ca"));
      List<Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < 100; i++) {
          Socket s = new Socket(url.getHost(), url.getPort());
          // a TLS record header announcing 200 bytes of ClientHello, then the first three of them
          s.getOutputStream()
              .write(new byte[] {0x16, 0x03, 0x01, 0x00, (byte) 200, 0x01, 0x00, 0x00});
          s.getOutputStream().flush();
          slow.add(s);
        }
        int handshaken = 0;
        for (int i = 0; i < 50; i++) {
          var s =
              (javax.net.ssl.SSLSocket)
                  tls.getSocketFactory().createSocket(url.getHost(), url.getPort());
          try {
            s.startHandshake(); // a whole handshake, then headers that never end
            s.getOutputStream()
                .write(
                    "POST /api/timestamp HTTP/1.1\r\nHost: x\r\nX-Slow: "
                        .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            handshaken++;
          } catch (java.io.IOException cutOff) {
            // on a machine loaded twenty-fold a handshake can itself outlast the 2 s limit: the
            // server cut it, as it should
          }
          slow.add(s);
        }
        assertTrue(
            handshaken >= 10,
            "most slow-header connections finished their handshake first: "
                + handshaken
                + " of 50");
        for (int i = 0; i < 50; i++)
          slow.add(new Socket(url.getHost(), url.getPort())); // connected, silent

        HttpClient client =
            HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1).build();
        assertAnsweredBeside(slow, client, url.resolve("/api/timestamp"), 405);
      } finally {
        for (Socket s : slow) s.close();
      }
    }
  }

  /**
   * The connection cap (lowered from 2,000 to 20 here): past it a new connection is closed at once
   * — the client learns it at once instead of waiting — and once the slow ones are cut, requests
   * are served again.
   */
  @Test
  void connectionCap_refusesAtOnce_thenServesAgainOnceTheSlowAreCut(@TempDir Path dir)
      throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    try (ServiceProcess tsa = start("tsa", fixture, "-Djdk.httpserver.maxConnections=20")) {
      URI url = URI.create(tsa.url());
      HttpRequest get =
          HttpRequest.newBuilder(url.resolve("/tsa")).GET().timeout(Duration.ofSeconds(5)).build();
      List<Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < 20; i++) slow.add(new Socket(url.getHost(), url.getPort()));
        // The server's selector takes the 20 in on its own time: until it has, one more may still
        // be answered.
        // Past the cap it is refused (an IOException), never left to the client's timeout (an
        // HttpTimeoutException).
        Await.until(
            Duration.ofSeconds(10),
            "a request past the cap to be refused",
            () ->
                refusedNotTimedOut(
                    () ->
                        HttpClient.newHttpClient()
                            .send(get, HttpResponse.BodyHandlers.ofString())));

        Await.until(
            Duration.ofSeconds(LIMIT_SECONDS + 15),
            "the silent connections to be cut off",
            allCut(slow));
        assertEquals(
            405,
            HttpClient.newHttpClient().send(get, HttpResponse.BodyHandlers.ofString()).statusCode(),
            "served again");
      } finally {
        for (Socket s : slow) s.close();
      }
    }
  }

  private interface IoCall {
    void call() throws IOException, InterruptedException;
  }

  /**
   * True when {@code call} was refused, false when it was answered; fails when it waited for its
   * timeout instead.
   */
  private static boolean refusedNotTimedOut(IoCall call) throws InterruptedException {
    try {
      call.call();
      return false;
    } catch (java.net.http.HttpTimeoutException waited) {
      throw new AssertionError(
          "the request past the cap waited for the client's timeout instead of being refused",
          waited);
    } catch (IOException refused) {
      return true;
    }
  }

  /**
   * Holds once every one of {@code sockets} was closed by the server; each poll stops at the first
   * still open (100 ms), and a socket seen closed is not read again (an SSLSocket refuses a second
   * look).
   */
  private static Await.Condition allCut(List<Socket> sockets) {
    java.util.Set<Socket> cut = new java.util.HashSet<>();
    return () -> {
      for (Socket s : sockets) {
        if (cut.contains(s)) continue;
        if (stillOpen(List.of(s)) > 0) return false;
        cut.add(s);
      }
      return true;
    };
  }

  /**
   * A normal request to {@code url} is answered {@code status} at once beside {@code slow}, and
   * once the request time limit has passed the server has cut every one of them off.
   */
  private static void assertAnsweredBeside(
      List<Socket> slow, HttpClient client, URI url, int status) throws Exception {
    // answered within the request's own 5 s timeout, well before the slow ones are cut (an
    // HttpTimeoutException otherwise)
    HttpResponse<String> normal =
        client.send(
            HttpRequest.newBuilder(url).GET().timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(
        status,
        normal.statusCode(),
        "a normal request is answered beside " + slow.size() + " slow ones: " + normal.body());

    Await.until(
        Duration.ofSeconds(LIMIT_SECONDS + 15),
        "every slow connection to be cut off by the server",
        allCut(slow));
  }

  private static ServiceProcess start(String service, TestKeys fixture, String... properties)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(ForkedSeries.thisJvm());
    for (String property : properties) command.add(1, property);
    command.add(1, "-Dsun.net.httpserver.maxReqTime=" + LIMIT_SECONDS);
    // A connection that sent nothing is cut by the JDK's idle task, which looks every 10 s by
    // default
    // (so within 60-70 s in service); every second here, to keep the test short.
    command.add(1, "-Dsun.net.httpserver.clockTick=1000");
    return ServiceProcess.start(
        command,
        List.of("serve", service, "--port", "0", "--pki", fixture.pki.dir().toString()),
        Map.of("PATH", System.getenv("PATH")));
  }

  /**
   * How many of {@code sockets} the server has not closed: a closed one reads to its end (after
   * whatever the server said last, a TLS alert say) or is reset; an open one has nothing to read
   * within 100 ms.
   */
  private static int stillOpen(List<Socket> sockets) throws IOException {
    int open = 0;
    for (Socket s : sockets) {
      s.setSoTimeout(100);
      InputStream in = s.getInputStream();
      try {
        byte[] buffer = new byte[4096];
        while (in.read(buffer) >= 0) {
          // what the server said before closing
        }
      } catch (SocketTimeoutException nothingYet) {
        open++;
      } catch (SocketException reset) {
        // closed with a reset: cut off too
      }
    }
    return open;
  }
}
