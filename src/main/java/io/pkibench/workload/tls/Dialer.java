package io.pkibench.workload.tls;

import io.netty.handler.ssl.SslContext;
import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.TlsConnection;
import io.pkibench.formats.tls.TlsEngine;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Opens the connections of the TLS workloads to a {@code tls://} or {@code tcp://} target, and
 * checks what a handshake negotiated against what was offered.
 */
final class Dialer {
  private Dialer() {}

  /**
   * A new connection to {@code address}: plain when {@code tls} is null, else a full handshake
   * whose group must be one of {@code groups} (empty: any); a failure names the target, the suite
   * and the groups offered.
   */
  static Connection connect(
      InetSocketAddress address,
      String target,
      SslContext tls,
      String suite,
      List<String> groups,
      int timeoutMillis)
      throws IOException {
    return connect(address, null, target, tls, suite, groups, timeoutMillis);
  }

  /** The same, leaving from {@code source} when not null ({@code -p source-addresses}). */
  static Connection connect(
      InetSocketAddress address,
      InetAddress source,
      String target,
      SslContext tls,
      String suite,
      List<String> groups,
      int timeoutMillis)
      throws IOException {
    Socket socket;
    try {
      socket = Connection.connect(address, source, timeoutMillis);
    } catch (BindException e) {
      throw new BindException(
          "cannot leave from "
              + (source == null ? "the kernel's source address" : source.getHostAddress())
              + " towards "
              + target
              + ": "
              + e.getMessage()
              + " (its ephemeral ports may be used up: give more -p source-addresses)");
    }
    if (tls == null) return new Connection.Plain(socket);
    TlsConnection c;
    try {
      c = TlsConnection.handshake(socket, TlsEngine.engine(tls));
    } catch (SSLException e) {
      throw new SSLException(
          "TLS handshake with "
              + target
              + " failed"
              + (suite.isEmpty() ? "" : " offering only " + suite)
              + (groups.isEmpty() ? "" : " offering only groups " + String.join(",", groups))
              + ": "
              + e.getMessage(),
          e);
    }
    if (!groups.isEmpty() && !groups.stream().anyMatch(g -> g.equalsIgnoreCase(c.group()))) {
      c.close();
      throw new SSLException(
          target
              + " negotiated group "
              + c.group()
              + ", not one of the "
              + String.join(",", groups)
              + " offered");
    }
    if (!suite.isEmpty() && !suite.equals(c.cipherSuite())) {
      c.close();
      throw new SSLException(
          target + " negotiated " + c.cipherSuite() + ", not the " + suite + " offered");
    }
    return c;
  }
}
