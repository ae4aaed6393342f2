package io.pkibench.workload.tls;

import io.netty.handler.ssl.SslContext;
import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.TlsClient;
import io.pkibench.formats.tls.TlsConnection;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * {@code tls-handshake --target tls://HOST:PORT}: a full TLS handshake over a real socket to any
 * server (connect, handshake, close, waiting for the server's own close so that a TLS 1.3 refusal
 * of the client's certificate, which arrives after the client's Finished, is counted). With {@code
 * resume} each engine names its peer, so the context's cache offers the last session (an
 * abbreviated handshake where the server takes it).
 */
final class SocketHandshakeWorkload implements Workload {
  private final InetSocketAddress address;
  private final String target;
  private final SslContext context;
  private final boolean resume;
  private final String protocol;
  private final X509Certificate presented;
  private final int timeoutMillis;

  /** With -p identities, each worker's own client; else every worker shares {@link #context}. */
  private final WorkerClients clients;

  /**
   * How long a TLS 1.3 handshake waits for the server's tickets or refusal before closing
   * (TlsConnection#closeAwaitingPeer).
   */
  static final int FIRST_RECORD_WAIT_MILLIS = 1000;

  SocketHandshakeWorkload(
      String target,
      InetSocketAddress address,
      SslContext context,
      boolean resume,
      String protocol,
      X509Certificate presented,
      int timeoutMillis,
      WorkerClients clients) {
    this.target = target;
    this.address = address;
    this.context = context;
    this.resume = resume;
    this.protocol = protocol;
    this.presented = presented;
    this.timeoutMillis = timeoutMillis;
    this.clients = clients;
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    if (!clients.perWorker()) return () -> handshake(context, presented);
    TlsClient own = clients.forWorker(worker);
    SslContext ownContext = own.context();
    X509Certificate ownCertificate = own.identity().certificate();
    return () -> handshake(ownContext, ownCertificate);
  }

  private void handshake(SslContext context, X509Certificate presented) throws IOException {
    SSLEngine engine =
        resume
            ? TlsEngine.resumingEngine(context, address.getHostString(), address.getPort())
            : TlsEngine.engine(context);
    TlsConnection c;
    try {
      c = TlsConnection.handshake(Connection.connect(address, timeoutMillis), engine);
    } catch (SSLException e) {
      throw new SSLException("TLS handshake with " + target + " failed: " + e.getMessage(), e);
    }
    try {
      if (!protocol.isEmpty() && !protocol.equals(c.protocol()))
        throw new SSLException(
            target + " negotiated " + c.protocol() + ", not the " + protocol + " offered");
    } catch (SSLException e) {
      c.close();
      throw e;
    }
    try {
      c.closeAwaitingPeer(Math.min(timeoutMillis, FIRST_RECORD_WAIT_MILLIS));
    } catch (SSLException e) {
      throw new SSLException(
          target
              + " ended the session with an alert after the handshake"
              + (presented == null ? " (no client certificate was presented)" : "")
              + ": "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public void close() {}
}
