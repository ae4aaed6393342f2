package io.pkibench.study;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The checking run of {@link LikeForLike}: a few HTTPS connections to one server, outside the
 * measured steps, each seeing what the server chose. The client offers the JDK's defaults (every
 * version and suite it has), so the server's configuration, not the probe's, decides what is
 * negotiated.
 */
final class TlsFactsProbe {
  private TlsFactsProbe() {}

  /** The key-exchange groups offered one at a time: those the servers of the study may accept. */
  static final List<String> GROUPS = List.of("x25519", "secp256r1", "secp384r1", "x448");

  private static final int TIMEOUT_MS = 5000;

  /**
   * Two connections each asking {@code GET /bytes/128} (the second offering the first one's
   * session), then one bare handshake per group of {@link #GROUPS}.
   */
  static LikeForLike.Facts probe(String server, String url)
      throws IOException, GeneralSecurityException {
    URI uri = URI.create(url);
    InetSocketAddress address = new InetSocketAddress(uri.getHost(), uri.getPort());
    SSLContext context = SSLContext.getInstance("TLS");
    // Observing, not trusting: the probe records the certificate it was shown and sends nothing
    // secret, so it accepts any chain (the measured clients verify theirs against the test PKI).
    context.init(null, new TrustManager[] {new Recording()}, null);
    Answer first = get(context, address);
    Answer second = get(context, address);
    boolean resumed =
        second.sessionId().length > 0 && Arrays.equals(first.sessionId(), second.sessionId());
    List<String> groups = new ArrayList<>();
    for (String group : GROUPS) if (accepts(context, address, group)) groups.add(group);
    return new LikeForLike.Facts(
        server,
        first.protocol(),
        first.suite(),
        groups,
        first.certificateSha256(),
        resumed ? 1 : 2,
        resumed ? 1 : 0,
        first.bodyBytes());
  }

  private record Answer(
      String protocol, String suite, byte[] sessionId, String certificateSha256, long bodyBytes) {}

  private static SSLSocket connect(SSLContext context, InetSocketAddress address)
      throws IOException {
    SSLSocket socket =
        (SSLSocket)
            context.getSocketFactory().createSocket(address.getHostString(), address.getPort());
    socket.setSoTimeout(TIMEOUT_MS);
    return socket;
  }

  private static Answer get(SSLContext context, InetSocketAddress address)
      throws IOException, GeneralSecurityException {
    try (SSLSocket socket = connect(context, address)) {
      socket.startHandshake();
      SSLSession session = socket.getSession();
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET /bytes/128 HTTP/1.1\r\nHost: " + address.getHostString() + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      long body = bodyBytes(socket.getInputStream());
      String sha256 =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(session.getPeerCertificates()[0].getEncoded()));
      return new Answer(
          session.getProtocol(), session.getCipherSuite(), session.getId(), sha256, body);
    }
  }

  /** The body's length by its Content-Length, read in full (the connection stays open). */
  private static long bodyBytes(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) throw new IOException("the server closed before its answer's headers ended");
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    long length = -1;
    for (String line : head.toString(StandardCharsets.US_ASCII).split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:"))
        length = Long.parseLong(line.substring("content-length:".length()).trim());
    }
    if (length < 0) throw new IOException("the answer to GET /bytes/128 had no Content-Length");
    long read = in.readNBytes((int) length).length;
    if (read != length)
      throw new IOException("the answer's body ended at " + read + " of " + length + " bytes");
    return read;
  }

  /** True when a handshake offering {@code group} alone completes. */
  private static boolean accepts(SSLContext context, InetSocketAddress address, String group)
      throws IOException {
    try (SSLSocket socket = connect(context, address)) {
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setNamedGroups(new String[] {group});
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return true;
    } catch (SSLException e) {
      return false;
    }
  }

  /** Accepts any chain: the probe observes which certificate a server presents (see above). */
  private static final class Recording implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
