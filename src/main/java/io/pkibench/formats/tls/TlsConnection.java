package io.pkibench.formats.tls;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.security.cert.Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * An {@link SSLEngine} (JSSE's or BoringSSL's) driven over a blocking socket, so both engines serve
 * the same closed-loop client code; the socket's read timeout bounds every wait.
 */
public final class TlsConnection implements Connection {
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final SSLEngine engine;

  /** Received, not yet unwrapped (read mode). */
  private ByteBuffer netIn;

  private ByteBuffer netOut;

  /** Decrypted, not yet handed out (read mode). */
  private ByteBuffer appIn;

  /**
   * Bytes written to and read from the socket so far, and as they stood when the handshake
   * finished.
   */
  private long bytesSent;

  private long bytesReceived;
  private long handshakeBytesSent;
  private long handshakeBytesReceived;

  private TlsConnection(Socket socket, SSLEngine engine, boolean client) throws IOException {
    this.socket = socket;
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
    this.engine = engine;
    engine.setUseClientMode(client);
    int packet = engine.getSession().getPacketBufferSize();
    netIn = ByteBuffer.allocate(packet).flip();
    netOut = ByteBuffer.allocate(packet);
    appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize()).flip();
  }

  /**
   * Connects {@code engine} over {@code socket} and completes the handshake; on failure the socket
   * is closed.
   */
  public static TlsConnection handshake(Socket socket, SSLEngine engine) throws IOException {
    return handshake(socket, engine, true);
  }

  /**
   * The server side of {@link #handshake(Socket, SSLEngine)}: {@code engine} answers the peer on an
   * accepted {@code socket}.
   */
  public static TlsConnection accept(Socket socket, SSLEngine engine) throws IOException {
    return handshake(socket, engine, false);
  }

  private static TlsConnection handshake(Socket socket, SSLEngine engine, boolean client)
      throws IOException {
    TlsConnection c = new TlsConnection(socket, engine, client);
    try {
      c.handshake();
      c.handshakeBytesSent = c.bytesSent;
      c.handshakeBytesReceived = c.bytesReceived;
      return c;
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Bytes this side wrote to the socket until its handshake finished (TLS records, as on the wire
   * less TCP/IP headers).
   */
  public long handshakeBytesSent() {
    return handshakeBytesSent;
  }

  /**
   * Bytes this side read from the socket until its handshake finished (a read may hold the start of
   * what follows: rare, as the peer waits).
   */
  public long handshakeBytesReceived() {
    return handshakeBytesReceived;
  }

  /**
   * The key-exchange group negotiated, read from the engine's session; null when the engine cannot
   * tell (JSSE).
   */
  public String group() {
    return KeyExchangeGroups.negotiated(engine);
  }

  public String protocol() {
    return engine.getSession().getProtocol();
  }

  public String cipherSuite() {
    return engine.getSession().getCipherSuite();
  }

  /** What the peer presented, leaf first (empty when it presented nothing). */
  public Certificate[] peerCertificates() {
    try {
      return engine.getSession().getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return new Certificate[0];
    }
  }

  private void handshake() throws IOException {
    engine.beginHandshake();
    HandshakeStatus status = engine.getHandshakeStatus();
    while (status != HandshakeStatus.FINISHED && status != HandshakeStatus.NOT_HANDSHAKING) {
      status =
          switch (status) {
            case NEED_WRAP -> current(wrap(EMPTY));
            case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> current(unwrap());
            case NEED_TASK -> runTasks();
            default -> throw new SSLException("unexpected handshake state " + status);
          };
    }
  }

  /**
   * The engine's state after a step. BoringSSL's engine reports the state from before the record it
   * just took (NEED_UNWRAP after the server's Finished), so ask the engine again; FINISHED is only
   * ever reported by the step itself.
   */
  private HandshakeStatus current(SSLEngineResult r) {
    return r.getHandshakeStatus() == HandshakeStatus.FINISHED
        ? HandshakeStatus.FINISHED
        : engine.getHandshakeStatus();
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    ByteBuffer src = ByteBuffer.wrap(bytes, offset, length);
    while (src.hasRemaining()) wrap(src);
  }

  @Override
  public void readFully(byte[] into, int offset, int length) throws IOException {
    int done = 0;
    while (done < length) {
      if (appIn.hasRemaining()) {
        int n = Math.min(appIn.remaining(), length - done);
        appIn.get(into, offset + done, n);
        done += n;
        continue;
      }
      SSLEngineResult r;
      try {
        r = unwrap();
      } catch (EOFException e) {
        throw new EOFException(e.getMessage() + " after " + done + " of " + length + " bytes");
      }
      // TLS 1.3 sends tickets and key updates after the handshake; answer what the engine asks for.
      HandshakeStatus status = r.getHandshakeStatus();
      while (status == HandshakeStatus.NEED_WRAP || status == HandshakeStatus.NEED_TASK) {
        status =
            status == HandshakeStatus.NEED_TASK ? runTasks() : wrap(EMPTY).getHandshakeStatus();
      }
    }
  }

  @Override
  public int read(byte[] into, int offset, int length) throws IOException {
    while (!appIn.hasRemaining()) {
      SSLEngineResult r;
      try {
        r = unwrap();
      } catch (EOFException closed) {
        return -1;
      }
      HandshakeStatus status = r.getHandshakeStatus();
      while (status == HandshakeStatus.NEED_WRAP || status == HandshakeStatus.NEED_TASK) {
        status =
            status == HandshakeStatus.NEED_TASK ? runTasks() : wrap(EMPTY).getHandshakeStatus();
      }
    }
    int n = Math.min(appIn.remaining(), length);
    appIn.get(into, offset, n);
    return n;
  }

  private SSLEngineResult wrap(ByteBuffer src) throws IOException {
    while (true) {
      netOut.clear();
      SSLEngineResult r = engine.wrap(src, netOut);
      if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
        netOut = ByteBuffer.allocate(netOut.capacity() * 2);
        continue;
      }
      netOut.flip();
      if (netOut.hasRemaining()) {
        out.write(netOut.array(), 0, netOut.limit());
        bytesSent += netOut.limit();
        out.flush();
      }
      if (r.getStatus() == SSLEngineResult.Status.CLOSED && src.hasRemaining())
        throw new SSLException("the TLS session is closed; cannot send");
      if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) runTasks();
      return r;
    }
  }

  /** Unwraps one record, reading from the socket until a whole one has arrived. */
  private SSLEngineResult unwrap() throws IOException {
    while (true) {
      appIn.compact();
      SSLEngineResult r;
      try {
        r = engine.unwrap(netIn, appIn);
      } finally {
        appIn.flip();
      }
      switch (r.getStatus()) {
        case OK -> {
          if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) runTasks();
          return r;
        }
        case BUFFER_UNDERFLOW -> {
          // BoringSSL's engine finishes a TLS 1.2 handshake on the call after the server's
          // Finished, reporting it with an underflow.
          if (r.getHandshakeStatus() == HandshakeStatus.FINISHED) return r;
          readMore();
        }
        case BUFFER_OVERFLOW -> appIn = ByteBuffer.allocate(appIn.capacity() * 2).put(appIn).flip();
        case CLOSED -> throw new EOFException("the server closed the TLS session");
      }
    }
  }

  private void readMore() throws IOException {
    if (netIn.position() == 0 && netIn.limit() == netIn.capacity()) {
      netIn = ByteBuffer.allocate(netIn.capacity() * 2).put(netIn).flip();
    }
    netIn.compact();
    int n;
    try {
      n = in.read(netIn.array(), netIn.position(), netIn.remaining());
      if (n > 0) bytesReceived += n;
      if (n > 0) netIn.position(netIn.position() + n);
    } finally {
      // a read timeout (closeAwaitingPeer's short wait for a first record) must leave the buffer
      // readable as it was:
      // left compacted, the next unwrap fed the engine stale bytes, and TLS 1.3 handshakes with
      // tlsecho ended in bad_record_mac
      netIn.flip();
    }
    if (n < 0) throw new EOFException("the server closed the connection");
  }

  private HandshakeStatus runTasks() {
    Runnable task;
    while ((task = engine.getDelegatedTask()) != null) task.run();
    return engine.getHandshakeStatus();
  }

  /** The session's id, to tell a resumed session (the same id as before) from a new one. */
  public byte[] sessionId() {
    return engine.getSession().getId();
  }

  /**
   * Sends close_notify and reads until the server closes: what the server sends after the client's
   * Finished (a TLS 1.3 refusal of the client's certificate, session tickets) is taken before the
   * connection counts as done; a refusal is thrown. The socket is closed in any case. In TLS 1.3
   * the server's first record after the handshake is awaited before close_notify, up to {@code
   * firstRecordWaitMillis}: BoringSSL's engine, once it has sent close_notify, reports a refusal
   * arriving then as an orderly close. A server that sends nothing after the handshake costs that
   * wait.
   */
  public void closeAwaitingPeer(int firstRecordWaitMillis) throws IOException {
    try {
      if ("TLSv1.3".equals(protocol())) awaitOneRecord(firstRecordWaitMillis);
      engine.closeOutbound();
      wrap(EMPTY);
      while (!engine.isInboundDone()) {
        SSLEngineResult r;
        try {
          r = unwrap();
        } catch (EOFException closed) {
          return; // the server closed the TCP connection: done
        }
        appIn.position(appIn.limit()); // data after our close_notify is not ours to check
        HandshakeStatus status = r.getHandshakeStatus();
        while (status == HandshakeStatus.NEED_WRAP || status == HandshakeStatus.NEED_TASK) {
          status =
              status == HandshakeStatus.NEED_TASK ? runTasks() : wrap(EMPTY).getHandshakeStatus();
        }
      }
    } finally {
      try {
        socket.close();
      } catch (IOException ignored) {
        // nothing left to save
      }
    }
  }

  private void awaitOneRecord(int waitMillis) throws IOException {
    int timeout = socket.getSoTimeout();
    socket.setSoTimeout(waitMillis);
    try {
      SSLEngineResult r = unwrap();
      appIn.position(appIn.limit());
      HandshakeStatus status = r.getHandshakeStatus();
      while (status == HandshakeStatus.NEED_WRAP || status == HandshakeStatus.NEED_TASK) {
        status =
            status == HandshakeStatus.NEED_TASK ? runTasks() : wrap(EMPTY).getHandshakeStatus();
      }
    } catch (SocketTimeoutException silent) {
      // the server sends nothing after the handshake: nothing refused
    } catch (EOFException closed) {
      // closed at once: the drain after close_notify sees the same
    } finally {
      if (!socket.isClosed()) socket.setSoTimeout(timeout);
    }
  }

  @Override
  public void close() {
    try {
      engine.closeOutbound();
      wrap(EMPTY); // close_notify, so the server sees an orderly close rather than a truncation
    } catch (IOException | RuntimeException ignored) {
      // the peer may be gone already; closing the socket is all that is left
    }
    try {
      socket.close();
    } catch (IOException ignored) {
      // nothing left to save
    }
  }
}
