package io.pkibench.server;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * A TLS server on the JDK's TLS (the signing service's HttpsServer, the PEC provider's STARTTLS)
 * refuses a client's renegotiation, as tlsecho does on Netty: the TLS record headers are read ahead
 * of the JDK's engine, and up to TLS 1.2 a client sends one handshake record (its Finished) after
 * its ChangeCipherSpec, so a further handshake record is a new handshake it started; it is refused
 * before the engine sees it. TLS 1.3 has no renegotiation and hides record types after its
 * handshake (its second ClientHello after a HelloRetryRequest is the one handshake record after its
 * compatibility ChangeCipherSpec), so nothing there is refused. The refusal is an {@link
 * SSLHandshakeException}: on a socket the JDK answers it with a handshake_failure alert, on the
 * HttpsServer's engine the connection is closed.
 *
 * <p>Not the JDK's own switch, {@code jdk.tls.rejectClientInitiatedRenegotiation}: it is read once
 * per process, when the first server handshake loads its class, so a server started after any other
 * TLS server in the same process (the test JVM, a {@code serve} of several services) could not
 * count on it.
 */
public final class NoClientRenegotiation {
  private NoClientRenegotiation() {}

  /**
   * {@code context} whose server engines, and sockets layered over accepted connections ({@code
   * getSocketFactory() .createSocket(socket, host, port, autoClose)}, STARTTLS), refuse a client's
   * renegotiation; {@code onRefused} runs at each refusal. Its server socket factory is refused (an
   * accepted TLS socket's records cannot be read ahead).
   */
  public static SSLContext refusing(SSLContext context, Runnable onRefused) {
    return new RefusingContext(new Spi(context, onRefused), context);
  }

  static SSLHandshakeException refusal() {
    return new SSLHandshakeException("client-initiated renegotiation refused");
  }

  private static final class RefusingContext extends SSLContext {
    RefusingContext(SSLContextSpi spi, SSLContext delegate) {
      super(spi, delegate.getProvider(), delegate.getProtocol());
    }
  }

  private static final class Spi extends SSLContextSpi {
    private final SSLContext delegate;
    private final Runnable onRefused;

    Spi(SSLContext delegate, Runnable onRefused) {
      this.delegate = delegate;
      this.onRefused = onRefused;
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr) {
      throw new IllegalStateException("this context was made from one already initialised");
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      return new LayeringFactory(delegate.getSocketFactory(), onRefused);
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      throw new UnsupportedOperationException(
          "a TLS server socket's records cannot be read ahead of its engine: accept plain sockets and layer TLS"
              + " over each with getSocketFactory().createSocket(socket, host, port, true)");
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      return new RefusingEngine(delegate.createSSLEngine(), onRefused);
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      return new RefusingEngine(delegate.createSSLEngine(host, port), onRefused);
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      return delegate.getServerSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      return delegate.getClientSessionContext();
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
      return delegate.getDefaultSSLParameters();
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
      return delegate.getSupportedSSLParameters();
    }
  }

  /**
   * The TLS record headers a client sent, read ahead of the engine as tlsecho's NoRenegotiation
   * reads them: the header of a handshake record that is the second after the client's
   * ChangeCipherSpec is a renegotiation.
   */
  static final class RecordWatch {
    private static final int CHANGE_CIPHER_SPEC = 20;
    private static final int HANDSHAKE = 22;
    private final byte[] header = new byte[5];
    private int headerFilled;
    private int bodyLeft;
    private boolean changeCipherSpecSeen;
    private int handshakeRecordsAfterIt;
    private boolean notTls;

    RecordWatch copy() {
      RecordWatch c = new RecordWatch();
      System.arraycopy(header, 0, c.header, 0, header.length);
      c.headerFilled = headerFilled;
      c.bodyLeft = bodyLeft;
      c.changeCipherSpecSeen = changeCipherSpecSeen;
      c.handshakeRecordsAfterIt = handshakeRecordsAfterIt;
      c.notTls = notTls;
      return c;
    }

    /**
     * Reads {@code bytes} (the next ones the client sent; their position is moved to the end): true
     * when they start a renegotiation.
     */
    boolean renegotiates(ByteBuffer bytes) {
      while (bytes.hasRemaining() && !notTls) {
        if (bodyLeft > 0) {
          int skip = Math.min(bodyLeft, bytes.remaining());
          bodyLeft -= skip;
          bytes.position(bytes.position() + skip);
          continue;
        }
        header[headerFilled++] = bytes.get();
        if (headerFilled < header.length) continue;
        headerFilled = 0;
        int type = header[0] & 0xff;
        bodyLeft = ((header[3] & 0xff) << 8) | (header[4] & 0xff);
        if (type < 20 || type > 24) {
          notTls =
              true; // not a TLS record stream (an SSLv2 hello, garbage): the engine refuses it as
          // it always has
        } else if (type == CHANGE_CIPHER_SPEC) {
          changeCipherSpecSeen = true;
        } else if (type == HANDSHAKE && changeCipherSpecSeen && ++handshakeRecordsAfterIt > 1) {
          return true;
        }
      }
      bytes.position(bytes.limit());
      return false;
    }
  }

  /**
   * Layers TLS over an accepted socket whose input is read through a {@link RecordWatch}; a
   * client's own sockets as they are.
   */
  private static final class LayeringFactory extends SSLSocketFactory {
    private final SSLSocketFactory delegate;
    private final Runnable onRefused;

    LayeringFactory(SSLSocketFactory delegate, Runnable onRefused) {
      this.delegate = delegate;
      this.onRefused = onRefused;
    }

    @Override
    public Socket createSocket(Socket s, String host, int port, boolean autoClose)
        throws IOException {
      return delegate.createSocket(
          new WatchedSocket(s, new WatchedInput(s.getInputStream(), new RecordWatch(), onRefused)),
          host,
          port,
          autoClose);
    }

    @Override
    public Socket createSocket(Socket s, InputStream consumed, boolean autoClose)
        throws IOException {
      // the bytes already read (a ClientHello looked at for its server name) come first, through
      // the same watch
      RecordWatch watch = new RecordWatch();
      return delegate.createSocket(
          new WatchedSocket(s, new WatchedInput(s.getInputStream(), watch, onRefused)),
          consumed == null ? null : new WatchedInput(consumed, watch, onRefused),
          autoClose);
    }

    @Override
    public String[] getDefaultCipherSuites() {
      return delegate.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
      return delegate.getSupportedCipherSuites();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return delegate.createSocket(host, port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
        throws IOException {
      return delegate.createSocket(host, port, localHost, localPort);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return delegate.createSocket(host, port);
    }

    @Override
    public Socket createSocket(
        InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
      return delegate.createSocket(address, port, localAddress, localPort);
    }
  }

  /**
   * What a client sent, through a {@link RecordWatch}: a renegotiation's record header is refused
   * as it arrives.
   */
  private static final class WatchedInput extends FilterInputStream {
    private final RecordWatch watch;
    private final Runnable onRefused;
    private boolean refused;

    WatchedInput(InputStream in, RecordWatch watch, Runnable onRefused) {
      super(in);
      this.watch = watch;
      this.onRefused = onRefused;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (refused) throw refusal();
      int n = in.read(b, off, len);
      if (n > 0 && watch.renegotiates(ByteBuffer.wrap(b, off, n))) {
        refused = true;
        onRefused.run();
        throw refusal();
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      byte[] skipped = new byte[(int) Math.min(n, 8192)];
      int read = read(skipped, 0, skipped.length);
      return Math.max(read, 0);
    }
  }

  /**
   * An accepted socket whose input goes through a {@link WatchedInput}: the JDK's layered TLS
   * socket reads and writes through the socket it is given, and sets its options and closes it, so
   * everything else is passed to the real one.
   */
  private static final class WatchedSocket extends Socket {
    private final Socket s;
    private final InputStream input;

    WatchedSocket(Socket s, InputStream input) {
      this.s = s;
      this.input = input;
    }

    @Override
    public InputStream getInputStream() {
      return input;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
      return s.getOutputStream();
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
      s.connect(endpoint, timeout);
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
      s.bind(bindpoint);
    }

    @Override
    public InetAddress getInetAddress() {
      return s.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
      return s.getLocalAddress();
    }

    @Override
    public int getPort() {
      return s.getPort();
    }

    @Override
    public int getLocalPort() {
      return s.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
      return s.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
      return s.getLocalSocketAddress();
    }

    @Override
    public SocketChannel getChannel() {
      return s.getChannel();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
      s.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
      return s.getTcpNoDelay();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
      s.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
      return s.getSoLinger();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
      s.sendUrgentData(data);
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
      s.setOOBInline(on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
      return s.getOOBInline();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
      s.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
      return s.getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
      s.setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
      return s.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
      s.setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
      return s.getReceiveBufferSize();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
      s.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
      return s.getKeepAlive();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
      s.setTrafficClass(tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
      return s.getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
      s.setReuseAddress(on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
      return s.getReuseAddress();
    }

    @Override
    public void close() throws IOException {
      s.close();
    }

    @Override
    public void shutdownInput() throws IOException {
      s.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
      s.shutdownOutput();
    }

    @Override
    public boolean isConnected() {
      return s.isConnected();
    }

    @Override
    public boolean isBound() {
      return s.isBound();
    }

    @Override
    public boolean isClosed() {
      return s.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
      return s.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
      return s.isOutputShutdown();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
      s.setPerformancePreferences(connectionTime, latency, bandwidth);
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
      s.setOption(name, value);
      return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
      return s.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
      return s.supportedOptions();
    }

    @Override
    public String toString() {
      return s.toString();
    }
  }
}
