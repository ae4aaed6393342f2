package io.pkibench.formats.pec;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * SMTP transactions (RFC 5321: EHLO, MAIL, RCPT…, DATA, QUIT), one on its own connection or many on
 * one, each command one write with Nagle off, and bounded in time: the users' client and the
 * providers' relay. Ours rather than SubEthaSMTP's SmartClient, which wrote its commands so that
 * every reply waited for a delayed ACK (about 50 ms per command on loopback: 300 ms a message) and
 * has no read timeout.
 */
public final class SmtpClient {
  private static final int MAX_REPLY_BYTES = 64 * 1024;

  private SmtpClient() {}

  /**
   * A reply other than the one expected: its code says whether trying again later can help (4xx) or
   * not (5xx).
   */
  public static final class Refusal extends IOException {
    private final int code;

    public Refusal(int code, String reply) {
      super(reply);
      this.code = code;
    }

    public int code() {
      return code;
    }

    /** A 5xx reply: the peer will not take this message, however often it is offered. */
    public boolean permanent() {
      return code >= 500;
    }
  }

  /**
   * Delivers {@code message} (CRLF lines) from {@code from} to {@code to}; returns when the server
   * answered 250 to its end.
   */
  public static void send(
      String host,
      int port,
      String heloName,
      String from,
      List<String> to,
      byte[] message,
      Duration timeout)
      throws IOException {
    send(host, port, heloName, from, to, message, timeout, null);
  }

  /**
   * As {@link #send(String, int, String, String, List, byte[], Duration)}, logged in as {@code
   * login} when given: STARTTLS first (the server's certificate checked against {@code login.tls()}
   * and the host name), then AUTH PLAIN, so that the password only ever crosses TLS.
   */
  public static void send(
      String host,
      int port,
      String heloName,
      String from,
      List<String> to,
      byte[] message,
      Duration timeout,
      PecLogin login)
      throws IOException {
    send(host, port, heloName, from, to, message, timeout, login, null);
  }

  /**
   * As above; a provider relaying to a peer gives {@code relayIdentity} (its own certificate, the
   * one the provider index lists): STARTTLS whenever the peer offers it, presenting that
   * certificate, which is how the peer knows the mail comes from the provider it claims.
   */
  public static void send(
      String host,
      int port,
      String heloName,
      String from,
      List<String> to,
      byte[] message,
      Duration timeout,
      PecLogin login,
      SSLContext relayIdentity)
      throws IOException {
    try (Connection c = Connection.open(host, port, heloName, timeout, login, relayIdentity)) {
      c.transaction(from, to, message);
    }
  }

  /**
   * One connection, greeted, past STARTTLS and AUTH when asked: transactions one after the other on
   * it, then QUIT on {@link #close}. A provider relaying many messages to one peer so pays one TCP
   * connection and one TLS handshake for many, as an MTA keeps its connection to a busy
   * destination.
   */
  public static final class Connection implements AutoCloseable {
    private final Socket plain;
    private final InputStream in;
    private final OutputStream out;
    private final SSLSession tlsSession;
    private boolean broken;

    private Connection(Socket plain, InputStream in, OutputStream out, SSLSession tlsSession) {
      this.plain = plain;
      this.in = in;
      this.out = out;
      this.tlsSession = tlsSession;
    }

    /**
     * The TLS session after STARTTLS, or null for a connection in clear: which one a handshake
     * resumed shows here.
     */
    public SSLSession tlsSession() {
      return tlsSession;
    }

    /**
     * Connects, reads the greeting, says EHLO; STARTTLS and AUTH PLAIN as {@link SmtpClient#send}
     * describes.
     */
    public static Connection open(
        String host,
        int port,
        String heloName,
        Duration timeout,
        PecLogin login,
        SSLContext relayIdentity)
        throws IOException {
      Socket plain = new Socket();
      try {
        plain.setTcpNoDelay(true);
        plain.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
        plain.setSoTimeout((int) timeout.toMillis());
        Socket socket = plain;
        SSLSession session = null;
        InputStream in = new BufferedInputStream(socket.getInputStream(), 4096);
        OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
        expect(in, 220, "greeting");
        command(out, "EHLO " + heloName);
        String ehlo = expect(in, 250, "EHLO");
        SSLContext tlsContext =
            login != null
                ? login.tls()
                : relayIdentity != null && ehlo.toUpperCase(Locale.ROOT).contains("STARTTLS")
                    ? relayIdentity
                    : null;
        if (tlsContext != null) {
          command(out, "STARTTLS");
          expect(in, 220, "STARTTLS");
          SSLSocket tls =
              (SSLSocket) tlsContext.getSocketFactory().createSocket(plain, host, port, true);
          SSLParameters params = tls.getSSLParameters();
          params.setEndpointIdentificationAlgorithm("HTTPS");
          tls.setSSLParameters(params);
          tls.startHandshake();
          session = tls.getSession();
          socket = tls;
          in = new BufferedInputStream(socket.getInputStream(), 4096);
          out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
          command(out, "EHLO " + heloName);
          expect(in, 250, "EHLO after STARTTLS");
        }
        if (login != null) {
          char[] password = login.password().chars();
          byte[] plainAuth =
              ("\0" + login.user() + "\0" + new String(password)).getBytes(StandardCharsets.UTF_8);
          Arrays.fill(password, '\0');
          String token = Base64.getEncoder().encodeToString(plainAuth);
          Arrays.fill(plainAuth, (byte) 0);
          command(out, "AUTH PLAIN " + token);
          expect(in, 235, "AUTH as " + login.user());
        }
        return new Connection(plain, in, out, session);
      } catch (IOException | RuntimeException e) {
        plain.close();
        throw e;
      }
    }

    /**
     * One message from {@code from} to {@code to}; returns when the server answered 250 to its end.
     * After a refusal the connection is reset (RSET) for the next one; after any other failure it
     * is {@link #broken}.
     */
    public void transaction(String from, List<String> to, byte[] message) throws IOException {
      try {
        command(out, "MAIL FROM:<" + from + ">");
        expect(in, 250, "MAIL FROM");
        for (String rcpt : to) {
          command(out, "RCPT TO:<" + rcpt + ">");
          expect(in, 250, "RCPT TO <" + rcpt + ">");
        }
        command(out, "DATA");
        expect(in, 354, "DATA");
        writeDotStuffed(out, message);
        out.flush();
        expect(in, 250, "the message");
      } catch (Refusal e) {
        if (e.code() == 421) {
          // the server is closing the connection (RFC 5321 §3.8), e.g. SubEthaSMTP's idle timeout
          // said while we were not asking
          broken = true;
          throw e;
        }
        try {
          command(out, "RSET");
          expect(in, 250, "RSET");
        } catch (IOException x) {
          broken = true;
        }
        throw e;
      } catch (IOException | RuntimeException e) {
        broken = true;
        throw e;
      }
    }

    /**
     * True once a transaction failed other than by a refusal: the connection cannot carry another.
     */
    public boolean broken() {
      return broken;
    }

    /** QUIT, then the connection closed. */
    @Override
    public void close() throws IOException {
      try (plain) {
        if (!broken) {
          command(out, "QUIT");
          // The messages are taken; a server that closes before answering QUIT changes nothing.
          reply(in);
        }
      } catch (IOException e) {
        // ignored, as above
      }
    }
  }

  private static void command(OutputStream out, String line) throws IOException {
    out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static String expect(InputStream in, int code, String after) throws IOException {
    String reply = reply(in);
    int got =
        reply.length() >= 3 && Character.isDigit(reply.charAt(0))
            ? Integer.parseInt(reply.substring(0, 3))
            : -1;
    if (got != code) throw new Refusal(got, after + ": " + reply.strip());
    return reply;
  }

  /**
   * A reply of one or more lines ({@code 250-…} continues, {@code 250 …} ends); its lines joined by
   * spaces.
   */
  private static String reply(InputStream in) throws IOException {
    StringBuilder all = new StringBuilder();
    ByteArrayOutputStream line = new ByteArrayOutputStream(128);
    int total = 0;
    while (true) {
      int b = in.read();
      if (b < 0)
        throw new IOException(
            "the server closed the connection" + (all.isEmpty() ? "" : " after '" + all + "'"));
      if (++total > MAX_REPLY_BYTES)
        throw new IOException("the server's reply exceeds " + MAX_REPLY_BYTES + " bytes");
      if (b != '\n') {
        if (b != '\r') line.write(b);
        continue;
      }
      String text = line.toString(StandardCharsets.ISO_8859_1);
      line.reset();
      if (!all.isEmpty()) all.append(' ');
      all.append(text);
      if (text.length() < 4 || text.charAt(3) != '-') return all.toString();
    }
  }

  /**
   * The message with every line that starts with a dot given a second one, ended by {@code
   * CRLF.CRLF} (RFC 5321 §4.5.2).
   */
  private static void writeDotStuffed(OutputStream out, byte[] message) throws IOException {
    int start = 0;
    boolean lineStart = true;
    for (int i = 0; i < message.length; i++) {
      if (lineStart && message[i] == '.') {
        out.write(message, start, i - start);
        out.write('.');
        start = i;
      }
      lineStart = message[i] == '\n';
    }
    out.write(message, start, message.length - start);
    boolean endsWithCrlf =
        message.length >= 2
            && message[message.length - 2] == '\r'
            && message[message.length - 1] == '\n';
    out.write((endsWithCrlf ? ".\r\n" : "\r\n.\r\n").getBytes(StandardCharsets.US_ASCII));
  }
}
