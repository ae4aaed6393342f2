package io.pkibench.formats.tls;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A client's connection to an echo server, plain or TLS: send bytes, read an exact number back,
 * close.
 */
public interface Connection extends AutoCloseable {
  void write(byte[] bytes, int offset, int length) throws IOException;

  /**
   * Reads exactly {@code length} bytes; a connection closed first is an {@link EOFException} saying
   * how far it got.
   */
  void readFully(byte[] into, int offset, int length) throws IOException;

  /**
   * Reads what has arrived, at least one byte, at most {@code length}; -1 once the server has
   * closed.
   */
  int read(byte[] into, int offset, int length) throws IOException;

  @Override
  void close();

  /**
   * A connected TCP socket with Nagle off (small requests must not wait for an ACK) and a read
   * timeout.
   */
  static Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
    return connect(address, null, timeoutMillis);
  }

  /**
   * The same, leaving from {@code source} (a port of its own ephemeral range) when not null, else
   * from the kernel's choice.
   */
  static Socket connect(InetSocketAddress address, InetAddress source, int timeoutMillis)
      throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      if (source != null) socket.bind(new InetSocketAddress(source, 0));
      socket.connect(address, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** Plain TCP: the baseline every TLS figure is normalised to. */
  final class Plain implements Connection {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public Plain(Socket socket) throws IOException {
      this.socket = socket;
      this.in = socket.getInputStream();
      this.out = socket.getOutputStream();
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
    }

    @Override
    public void readFully(byte[] into, int offset, int length) throws IOException {
      int done = 0;
      while (done < length) {
        int n = in.read(into, offset + done, length - done);
        if (n < 0)
          throw new EOFException(
              "the server closed the connection after " + done + " of " + length + " bytes");
        done += n;
      }
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
      return in.read(into, offset, length);
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing: nothing left to save
      }
    }
  }
}
