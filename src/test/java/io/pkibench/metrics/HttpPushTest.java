package io.pkibench.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The push against receivers that answer without end: slowly, with interim answers, with a line
 * that never ends, with a body that never ends. Each push ends within its deadline, having read a
 * bounded number of bytes, and says why.
 */
@Timeout(120)
class HttpPushTest {
  /**
   * How long a test lets a push take: the push's own deadline with generous room for a loaded
   * machine.
   */
  private static final Duration BOUND = HttpPush.PUSH_WITHIN.multipliedBy(5);

  /**
   * What a hostile receiver writes once it has read a request; it stops when the client closes or
   * its own limit is hit.
   */
  interface Answer {
    void write(OutputStream out) throws Exception;
  }

  /**
   * A receiver on 127.0.0.1 that reads each request (head and Content-Length body) and answers with
   * {@code answer}; it counts what it sent, and stops by itself after {@link #LIFETIME}.
   */
  static final class HostileReceiver implements AutoCloseable {
    static final Duration LIFETIME = Duration.ofSeconds(90);
    final ServerSocket listening;
    final AtomicLong sent = new AtomicLong();
    final List<Socket> accepted = new CopyOnWriteArrayList<>();
    final List<Thread> answering = new CopyOnWriteArrayList<>();
    final long until = System.nanoTime() + LIFETIME.toNanos();

    HostileReceiver(Answer answer) throws IOException {
      listening = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  for (int connections = 0; connections < 32; connections++) {
                    Socket s = listening.accept();
                    accepted.add(s);
                    answering.add(
                        Thread.ofVirtual()
                            .start(
                                () -> {
                                  try (s) {
                                    s.setSoTimeout((int) LIFETIME.toMillis());
                                    readRequest(s.getInputStream());
                                    answer.write(new Counting(s.getOutputStream()));
                                  } catch (Exception e) {
                                    // the client closed, or the receiver's time is up: either ends
                                    // this connection
                                  }
                                }));
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              });
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + listening.getLocalPort() + "/api/v1/write");
    }

    /**
     * Whether the receiver should go on writing; false once its lifetime is over, so it never runs
     * on without the test.
     */
    boolean alive() {
      return System.nanoTime() < until;
    }

    /**
     * Waits for every connection's answering to end (the client closed it, or the lifetime ended).
     */
    void awaitAnswersEnded() throws InterruptedException {
      for (Thread t : answering) t.join(LIFETIME.toMillis());
    }

    @Override
    public void close() throws IOException {
      listening.close();
      for (Socket s : accepted) s.close();
    }

    private final class Counting extends OutputStream {
      private final OutputStream out;

      Counting(OutputStream out) {
        this.out = out;
      }

      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        if (!alive()) throw new IOException("the receiver's lifetime is over");
        out.write(b, off, len);
        out.flush();
        sent.addAndGet(len);
      }
    }
  }

  static void readRequest(InputStream raw) throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(raw));
    int length = 0;
    for (String line; !(line = readLine(in)).isEmpty(); ) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:"))
        length = Integer.parseInt(line.substring(15).trim());
    }
    in.readFully(new byte[length]);
  }

  private static String readLine(DataInputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0) throw new EOFException();
      if (c != '\r') line.append((char) c);
    }
    return line.toString();
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The push's failure, which must come within {@link #BOUND}. */
  private static MetricsSink.PushException failedPush(URI uri) {
    return assertTimeoutPreemptively(
        BOUND,
        () -> {
          try (HttpPush push = new HttpPush()) {
            return assertThrows(
                MetricsSink.PushException.class,
                () -> push.post(uri, Map.of(), new byte[] {1, 2, 3}, 3));
          }
        },
        "the push must end within its deadline of " + HttpPush.PUSH_WITHIN.toSeconds() + " s");
  }

  @Test
  void post_chunkedBodyDrippingAByteEvery2Seconds_failsAtThePushDeadline() throws Exception {
    try (HostileReceiver receiver =
        new HostileReceiver(
            out -> {
              out.write(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffff\r\n"));
              while (true) {
                out.write(
                    'x'); // each byte well within the per-read timeout, the body never complete
                Thread.sleep(2_000);
              }
            })) {
      long start = System.nanoTime();
      MetricsSink.PushException e = failedPush(receiver.uri());
      assertEquals(
          "no whole answer within " + HttpPush.PUSH_WITHIN.toSeconds() + " s", e.getMessage());
      assertTrue(e.retryable());
      assertTrue(
          System.nanoTime() - start
              >= HttpPush.PUSH_WITHIN.toNanos() - Duration.ofMillis(100).toNanos(),
          "not before the deadline");
    }
  }

  @Test
  void post_endlessHundredContinueAnswers_failsNamingTheInterimAnswers() throws Exception {
    try (HostileReceiver receiver =
        new HostileReceiver(
            out -> {
              while (true) out.write(ascii("HTTP/1.1 100 Continue\r\n\r\n"));
            })) {
      MetricsSink.PushException e = failedPush(receiver.uri());
      assertEquals(
          "the receiver's answer has over "
              + HttpPush.MAX_INTERIM_ANSWERS
              + " interim (1xx) answers before its status",
          e.getMessage());
    }
  }

  @Test
  void post_headerLineOfEndlessCarriageReturns_failsNamingTheLineLimit() throws Exception {
    try (HostileReceiver receiver =
        new HostileReceiver(
            out -> {
              out.write(ascii("HTTP/1.1 200 OK\r\nX-Padding: "));
              byte[] returns = new byte[64 * 1024];
              Arrays.fill(returns, (byte) '\r');
              while (true) out.write(returns);
            })) {
      MetricsSink.PushException e = failedPush(receiver.uri());
      assertEquals(
          "the receiver's answer has a line over " + HttpPush.MAX_LINE_BYTES + " bytes",
          e.getMessage());
    }
  }

  @Test
  void post_manyShortHeaders_failsNamingTheHeaderLimit() throws Exception {
    try (HostileReceiver receiver =
        new HostileReceiver(
            out -> {
              out.write(ascii("HTTP/1.1 200 OK\r\n"));
              while (true) out.write(ascii("X: y\r\n"));
            })) {
      MetricsSink.PushException e = failedPush(receiver.uri());
      assertEquals(
          "the receiver's answer has over " + HttpPush.MAX_HEADERS + " headers", e.getMessage());
    }
  }

  /**
   * A fast body without end: the push reads a small cap of it, quotes the start, and closes rather
   * than drain it.
   */
  @Test
  void post_endlessFastChunkedBody_readsAtMostTheCapThenCloses() throws Exception {
    try (HostileReceiver receiver =
        new HostileReceiver(
            out -> {
              out.write(
                  ascii("HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n"));
              byte[] chunk = new byte[16 * 1024 + 8];
              byte[] size = ascii("4000\r\n");
              System.arraycopy(size, 0, chunk, 0, size.length);
              Arrays.fill(chunk, size.length, size.length + 16 * 1024, (byte) 'x');
              chunk[chunk.length - 2] = '\r';
              chunk[chunk.length - 1] = '\n';
              while (true) out.write(chunk);
            })) {
      MetricsSink.PushException e = failedPush(receiver.uri());
      assertEquals("HTTP 503: " + "x".repeat(200) + "…", e.getMessage());
      assertTrue(e.retryable());
      receiver.awaitAnswersEnded();
      // What the client read is at most the cap; the rest of what the receiver could write sat in
      // the sockets' buffers.
      assertTrue(
          receiver.sent.get() < 64L * 1024 * 1024,
          "the receiver wrote " + receiver.sent.get() + " bytes before the client closed");
    }
  }

  /**
   * A refusal's words reach the terminal with the bidirectional override U+202E written as its
   * code, not reversing the line.
   */
  @Test
  void post_refusalHoldingARightToLeftOverride_quotedWithItsCode() throws Exception {
    byte[] said = "bad sample \u202Egnp.exe".getBytes(StandardCharsets.UTF_8);
    try (HostileReceiver receiver =
        new HostileReceiver(
            out -> {
              out.write(
                  ascii("HTTP/1.1 400 Bad Request\r\nContent-Length: " + said.length + "\r\n\r\n"));
              out.write(said);
            })) {
      MetricsSink.PushException e = failedPush(receiver.uri());
      assertEquals("HTTP 400: bad sample \\u202egnp.exe", e.getMessage());
      assertTrue(!e.retryable());
    }
  }
}
