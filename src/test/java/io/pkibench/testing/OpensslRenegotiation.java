package io.pkibench.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A client-initiated renegotiation as testssl.sh tries it: {@code openssl s_client -tls1_2}
 * connects, and an {@code R} line on its input makes it renegotiate. Bounded: s_client is given
 * {@link #WAIT_SECONDS} to end by itself (the server refused), then its input is closed and it is
 * killed if it still runs.
 */
public final class OpensslRenegotiation {
  /**
   * Ample for a handshake on loopback on a loaded machine: a refusal ends s_client in milliseconds.
   */
  static final long WAIT_SECONDS = 10;

  private OpensslRenegotiation() {}

  /**
   * What s_client printed and whether the renegotiation was refused.
   *
   * @param output stdout and stderr together
   * @param endedByItself s_client ended before its input was closed: the server closed the
   *     connection
   * @param afterRenegotiating what it printed after "RENEGOTIATING"
   */
  public record Attempt(String output, boolean endedByItself, String afterRenegotiating) {
    /**
     * Refused: s_client started it, the server closed the connection, and no second handshake
     * completed (no certificate checked again).
     */
    public boolean refused() {
      return output.contains("RENEGOTIATING")
          && endedByItself
          && !afterRenegotiating.contains("verify return");
    }
  }

  /**
   * Connects to 127.0.0.1:{@code port} with TLS 1.2 ({@code extra} arguments after, e.g. {@code
   * -starttls smtp}) and renegotiates once.
   */
  public static Attempt attempt(int port, String... extra) throws Exception {
    return attempt(port, false, extra);
  }

  /**
   * As {@link #attempt(int, String...)}; with {@code serverSpeaksFirst} (an HTTP/2 server sends its
   * SETTINGS as soon as the handshake ends) the {@code R} waits until those bytes have been
   * printed: arriving during the renegotiation, they would make s_client abort by itself
   * ("unexpected record") and hide the server's own answer.
   */
  public static Attempt attempt(int port, boolean serverSpeaksFirst, String... extra)
      throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2"));
    cmd.addAll(List.of(extra));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    p.getInputStream().transferTo(printed);
                  } catch (java.io.IOException ended) {
                    // the process ended
                  }
                });
    OutputStream in = p.getOutputStream();
    if (serverSpeaksFirst) awaitServerBytes(printed, p);
    in.write("R\n".getBytes(StandardCharsets.US_ASCII));
    in.flush();
    boolean endedByItself = p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
    try {
      in.close(); // s_client says goodbye and ends
    } catch (java.io.IOException gone) {
      // it had ended
    }
    if (!p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS))
      p.destroyForcibly().waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
    reader.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    String output;
    synchronized (printed) {
      output = printed.toString(StandardCharsets.UTF_8);
    }
    int at = output.indexOf("RENEGOTIATING");
    return new Attempt(output, endedByItself, at < 0 ? "" : output.substring(at));
  }

  /**
   * Until something follows the handshake's summary (its "Verify return code" and the "---" after
   * it), bounded by {@link #WAIT_SECONDS}; a process that ends first leaves it to the caller.
   */
  private static void awaitServerBytes(ByteArrayOutputStream printed, Process p)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (System.nanoTime() < deadline && p.isAlive()) {
      String so;
      synchronized (printed) {
        so = printed.toString(StandardCharsets.ISO_8859_1);
      }
      int verified = so.indexOf("Verify return code");
      int end = verified < 0 ? -1 : so.indexOf("---\n", verified);
      if (end >= 0 && so.length() > end + 4) return;
      Thread.sleep(20);
    }
  }
}
