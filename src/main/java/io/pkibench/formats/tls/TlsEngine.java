package io.pkibench.formats.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * The two TLS engines pkibench can put on either end: the JDK's JSSE, and BoringSSL through
 * netty-tcnative (statically linked, so the system's OpenSSL version does not decide what it can
 * do). Both come out as an {@link SslContext}, so the server and the client handle them alike.
 */
public enum TlsEngine {
  JSSE("jsse", SslProvider.JDK),
  OPENSSL("openssl", SslProvider.OPENSSL);

  public final String flag;
  private final SslProvider provider;

  TlsEngine(String flag, SslProvider provider) {
    this.flag = flag;
    this.provider = provider;
  }

  public static TlsEngine parse(String flag) {
    for (TlsEngine e : values()) if (e.flag.equals(flag)) return e;
    throw new IllegalArgumentException("unknown TLS engine '" + flag + "'; use jsse or openssl");
  }

  /** Why this engine cannot run here, or null. */
  public String problem() {
    if (this == OPENSSL && !OpenSsl.isAvailable()) {
      Throwable cause = OpenSsl.unavailabilityCause();
      return "the openssl engine (BoringSSL via netty-tcnative) did not load: "
          + (cause == null ? "unknown cause" : cause.getMessage())
          + "; use --tls jsse, or run on linux-x86_64";
    }
    return null;
  }

  /** Name and version, for the result's environment and the report. */
  public String describe() {
    return switch (this) {
      case JSSE -> "JSSE (" + Runtime.version() + ")";
      case OPENSSL ->
          OpenSsl.isAvailable()
              ? OpenSsl.versionString() + " via netty-tcnative"
              : "BoringSSL (not loaded)";
    };
  }

  /**
   * The cipher suites (IANA names) this engine implements; a suite outside it cannot be enabled at
   * all.
   */
  public List<String> implementedSuites() {
    return switch (this) {
      case JSSE -> {
        try {
          yield List.of(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
        } catch (GeneralSecurityException e) {
          throw new IllegalStateException(
              "the JDK has no default TLS context: " + e.getMessage(), e);
        }
      }
      case OPENSSL ->
          OpenSsl.availableJavaCipherSuites().stream().filter(s -> s.startsWith("TLS_")).toList();
    };
  }

  /**
   * This engine's name for the IANA suite {@code iana}: JSSE still names the suites SSL 3.0 defined
   * by their {@code SSL_} names (SSL_RSA_WITH_RC4_128_MD5, SSL_RSA_WITH_3DES_EDE_CBC_SHA) and
   * reports them so when negotiated; {@code iana} itself where the engine knows it, or knows
   * neither.
   */
  public String suiteName(String iana) {
    if (!iana.startsWith("TLS_")) return iana;
    // JSSE takes the TLS_ alias too, but negotiates and reports the SSL_ name: that one, where it
    // has it
    String ssl = "SSL_" + iana.substring("TLS_".length());
    return implementsSuite(ssl) ? ssl : iana;
  }

  /**
   * Whether this engine has {@code suite} at all, enabled or not: JSSE lists only what its security
   * policy ({@code jdk.tls.disabledAlgorithms}) leaves enabled, yet still has RC4, 3DES and RSA key
   * exchange, which a JVM started with another policy may use (the ssl study's own JVMs); an engine
   * takes such a name, and refuses an unknown one.
   */
  public boolean implementsSuite(String suite) {
    if (implementedSuites().contains(suite)) return true;
    if (this != JSSE) return false;
    try {
      SSLContext.getDefault().createSSLEngine().setEnabledCipherSuites(new String[] {suite});
      return true;
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      return false;
    }
  }

  /**
   * Server side: {@code key} and its chain; only {@code protocols} and {@code suites}. Empty suites
   * are the {@link #forwardSecretSuites} of the engine, not its defaults: BoringSSL's defaults
   * include RSA key exchange (AES128-SHA, AES128-GCM-SHA256), whose sessions a stolen server key
   * decrypts after the fact. A study that measures such a suite names it.
   */
  public SslContext server(
      PrivateKey key, List<X509Certificate> chain, List<String> protocols, List<String> suites)
      throws SSLException {
    return server(key, chain, protocols, suites, ClientAuth.NONE, null, List.of());
  }

  /**
   * {@link #server(PrivateKey, List, List, List)} asking the client for a certificate that chains
   * to {@code clientRoot}, and accepting only the key-exchange {@code groups} ({@link
   * KeyExchangeGroups}; empty: the engine's).
   */
  public SslContext server(
      PrivateKey key,
      List<X509Certificate> chain,
      List<String> protocols,
      List<String> suites,
      ClientAuth clientAuth,
      X509Certificate clientRoot,
      List<String> groups)
      throws SSLException {
    SslContextBuilder b =
        SslContextBuilder.forServer(key, chain.toArray(new X509Certificate[0]))
            .sslProvider(provider)
            .clientAuth(clientAuth);
    if (clientRoot != null && this == OPENSSL) {
      try {
        b.trustManager(
            ClientPurposeCheck.trusting(
                clientRoot)); // a wrong-purpose certificate refused as such, not as an internal
        // error
      } catch (GeneralSecurityException e) {
        throw new SSLException(
            "cannot trust client certificates from "
                + clientRoot.getSubjectX500Principal()
                + ": "
                + e.getMessage(),
            e);
      }
    } else if (clientRoot != null) {
      b.trustManager(clientRoot);
    }
    return KeyExchangeGroups.apply(
            restrict(b, protocols, suites.isEmpty() ? forwardSecretSuites() : suites), this, groups)
        .build();
  }

  /**
   * The suites this engine implements with an ephemeral key exchange and an AEAD cipher, and every
   * TLS 1.3 suite (all are).
   */
  public List<String> forwardSecretSuites() {
    return implementedSuites().stream()
        .filter(
            s ->
                !s.contains("_WITH_")
                    || ((s.startsWith("TLS_ECDHE_") || s.startsWith("TLS_DHE_"))
                        && (s.contains("_GCM_") || s.contains("CHACHA20"))))
        .filter(
            s ->
                !s.contains("_anon_")
                    && !s.contains("_NULL_")
                    && !s.equals("TLS_EMPTY_RENEGOTIATION_INFO_SCSV"))
        .toList();
  }

  /**
   * Client side, trusting only {@code root}. No hostname check: the target is named by address and
   * the trust anchor is the test PKI's (or the user's) root, which is what is being authenticated.
   */
  public SslContext client(X509Certificate root, List<String> protocols, List<String> suites)
      throws SSLException {
    return client(root, protocols, suites, List.of());
  }

  /** As above, offering only the key-exchange {@code groups}, in order (empty: the engine's). */
  public SslContext client(
      X509Certificate root, List<String> protocols, List<String> suites, List<String> groups)
      throws SSLException {
    return new TlsClient(this, List.of(root), null, protocols, suites, groups).context();
  }

  SslProvider provider() {
    return provider;
  }

  /**
   * A fresh engine with no peer host, so it never resumes a session: each connection from it makes
   * a full handshake (the ACRR transaction).
   */
  public static SSLEngine engine(SslContext context) {
    return context.newEngine(ByteBufAllocator.DEFAULT);
  }

  /**
   * An engine that names its peer, so the context's session cache offers the last session to the
   * same host and port: an abbreviated handshake when the server takes it (session resumption).
   */
  public static SSLEngine resumingEngine(SslContext context, String host, int port) {
    return context.newEngine(ByteBufAllocator.DEFAULT, host, port);
  }

  SslContextBuilder restrict(SslContextBuilder b, List<String> protocols, List<String> suites) {
    if (!protocols.isEmpty()) b.protocols(protocols.toArray(new String[0]));
    List<String> ordered = new ArrayList<>(suites);
    // BoringSSL always offers its three TLS 1.3 suites and ignores a choice among them (netty says
    // so in
    // a log line on every context): drop them here, and the caller's check of what was negotiated
    // tells.
    // But netty turns TLS 1.3 off when a list holds no TLS 1.3 suite, so where 1.3 is allowed and
    // the list
    // had one (the server's forward-secret default does), one is kept: without it the hybrid
    // groups, which
    // only TLS 1.3 has, could never be negotiated.
    if (this == OPENSSL) {
      boolean hadTls13 = ordered.stream().anyMatch(s -> !s.contains("_WITH_"));
      ordered.removeIf(s -> !s.contains("_WITH_"));
      boolean tls13Allowed = protocols.isEmpty() || protocols.contains("TLSv1.3");
      if (hadTls13 && tls13Allowed && !ordered.isEmpty()) ordered.add("TLS_AES_128_GCM_SHA256");
    }
    if (!ordered.isEmpty()) b.ciphers(ordered, IdentityCipherSuiteFilter.INSTANCE);
    return b;
  }
}
