package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Workload;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tls-* workloads' own checks fed the faults they exist for, by an echo server on loopback that
 * speaks the protocol but answers wrong: one byte of every response flipped, a stale response (the
 * previous request's), an acknowledgement whose CRC-32 is off by one bit. Each run counts every
 * operation failed with the check's message, and goes on.
 */
@Timeout(
    value = 2,
    unit = java.util.concurrent.TimeUnit.MINUTES) // talks to a server: a hang fails, said as one
class EchoChecksTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  enum Fault {
    FLIPPED_BYTE,
    STALE_RESPONSE,
    WRONG_CRC
  }

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  /** Plain TCP, EchoProtocol's frames, answering with {@code fault}; one thread per connection. */
  static final class FaultyEchoServer implements AutoCloseable {
    final ServerSocket listener;
    final Fault fault;

    FaultyEchoServer(Fault fault) throws IOException {
      this.fault = fault;
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                while (!listener.isClosed()) {
                  try {
                    Socket s = listener.accept();
                    Thread.ofPlatform().daemon().start(() -> serve(s));
                  } catch (IOException closed) {
                    return;
                  }
                }
              });
    }

    String target() {
      return "tcp://127.0.0.1:" + listener.getLocalPort();
    }

    private void serve(Socket s) {
      try (s;
          DataInputStream in = new DataInputStream(s.getInputStream());
          OutputStream out = s.getOutputStream()) {
        byte[] previous = null;
        CRC32 crc = new CRC32();
        int frames = 0;
        long bytes = 0;
        while (true) {
          byte kind = in.readByte();
          int requestLength = in.readInt();
          int responseLength = in.readInt();
          byte[] request = in.readNBytes(requestLength);
          if (kind == EchoProtocol.REQUEST) {
            byte[] echoed = fault == Fault.STALE_RESPONSE && previous != null ? previous : request;
            byte[] response = new byte[responseLength];
            for (int i = 0; i < responseLength; i++) response[i] = echoed[i % echoed.length];
            if (fault == Fault.FLIPPED_BYTE) response[responseLength / 2] ^= 0x01;
            out.write(response);
            previous = request;
          } else if (kind == EchoProtocol.STREAM) {
            crc.update(request);
            frames++;
            bytes += requestLength;
          } else if (kind == EchoProtocol.ACKNOWLEDGE) {
            int sum = (int) crc.getValue() ^ (fault == Fault.WRONG_CRC ? 1 : 0);
            out.write(
                ByteBuffer.allocate(EchoProtocol.ACK_BYTES)
                    .putInt(frames)
                    .putInt(sum)
                    .putLong(bytes)
                    .array());
            crc.reset();
            frames = 0;
            bytes = 0;
          } else {
            return;
          }
          out.flush();
        }
      } catch (IOException gone) {
        // the client closed
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
    }
  }

  static Workload workload(TlsWorkload.Kind kind, String target, Map<String, String> extra)
      throws Exception {
    Map<String, String> params = new HashMap<>(extra);
    params.put("target", target);
    return fixture.workload(new TlsWorkload.Factory(kind), params);
  }

  @Test
  void rrAndAcrr_aByteOfEveryResponseFlipped_everyTransactionCountedFailed() throws Exception {
    try (FaultyEchoServer server = new FaultyEchoServer(Fault.FLIPPED_BYTE)) {
      try (Workload w = workload(TlsWorkload.Kind.RR, server.target(), Map.of("size", "128"))) {
        MeasuredRun.of("tls-rr, flipped byte", w)
            .assertEveryFailedWith("the response differs from the request at byte");
      }
      try (Workload w =
          workload(
              TlsWorkload.Kind.ACRR, server.target(), Map.of("request", "64", "response", "1k"))) {
        MeasuredRun.of("tls-acrr, flipped byte", w)
            .assertEveryFailedWith("the response differs from the request at byte");
      }
    }
  }

  @Test
  void rr_theResponseToThePreviousRequest_everyStaleAnswerCountedFailed() throws Exception {
    try (FaultyEchoServer server = new FaultyEchoServer(Fault.STALE_RESPONSE);
        Workload w = workload(TlsWorkload.Kind.RR, server.target(), Map.of("size", "128"))) {
      // five transactions at least, however long a loaded machine takes to make them: the share
      // below is judged on a count, not on what fits in a fixed window
      MeasuredRun run = MeasuredRun.of("tls-rr, stale response", w, Duration.ofMillis(300), 5);
      // A connection's first answer is its own request's; the second is stale (each request is
      // stamped apart), fails,
      // and the workload drops the connection: so one transaction in two fails, every one of them
      // for its staleness.
      assertTrue(
          run.started() > 4
              && run.failed() >= run.started() / 2
              && run.succeeded() <= run.failed() + 1,
          run.toString());
      assertTrue(
          run.errors().keySet().stream()
              .allMatch(c -> c.contains("the response differs from the request at byte")),
          run.errors().toString());
    }
  }

  @Test
  void stream_anAcknowledgementWithAnotherCrc_everyAcknowledgedSendCountedFailed()
      throws Exception {
    try (FaultyEchoServer server = new FaultyEchoServer(Fault.WRONG_CRC);
        Workload w =
            workload(TlsWorkload.Kind.STREAM, server.target(), Map.of("size", "1k", "ack", "1"))) {
      MeasuredRun.of("tls-stream, wrong CRC", w)
          .assertEveryFailedWith("stream acknowledgement differs");
    }
  }

  @Test
  void rr_anHonestAnswer_passes() throws Exception {
    // the same server without its fault: what the three tests above see failing is the fault, not
    // the server
    try (FaultyEchoServer server = new FaultyEchoServer(null);
        Workload w = workload(TlsWorkload.Kind.RR, server.target(), Map.of("size", "128"))) {
      MeasuredRun.of("tls-rr, honest", w).assertEverySucceeded();
    }
  }
}
