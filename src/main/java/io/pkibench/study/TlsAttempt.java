package io.pkibench.study;

import io.netty.handler.ssl.SslContext;
import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.TlsConnection;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.keys.SigningKey;
import io.pkibench.server.tlsecho.TlsEchoServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Whether this runtime can speak one TLS configuration: a real echo server and client of {@code
 * engine} on loopback, offering only {@code protocol} and {@code suite} with {@code key}, one
 * request and its answer. What a study asks before it plans a cell, so a refusal is found, named
 * and recorded rather than measured as a column of errors.
 */
public record TlsAttempt(TlsEngine engine, String keyFlag, String protocol, String suite) {

  /** Null when the exchange succeeded; else what refused it, in the engine's words. */
  public String refusal(SigningKey key, X509Certificate root) {
    if (!engine.implementsSuite(suite)) return engine.flag + " does not implement " + suite;
    TlsEchoServer server = null;
    try {
      SslContext serverContext =
          engine.server(key.privateKey(), key.chain(), List.of(protocol), List.of(suite));
      SslContext clientContext = engine.client(root, List.of(protocol), List.of(suite));
      server =
          new TlsEchoServer(
              serverContext,
              engine.flag,
              "127.0.0.1",
              0,
              -1,
              new TlsEchoServer.Limits(Duration.ofSeconds(5), Duration.ofSeconds(5), 4));
      server.start();
      URI url = URI.create(server.baseUrl());
      try (TlsConnection c =
          TlsConnection.handshake(
              Connection.connect(new InetSocketAddress(url.getHost(), url.getPort()), 5_000),
              TlsEngine.engine(clientContext))) {
        if (!suite.equals(c.cipherSuite()) || !protocol.equals(c.protocol())) {
          return "negotiated " + c.protocol() + " " + c.cipherSuite() + " instead";
        }
        byte[] request = new byte[16];
        Arrays.fill(request, (byte) 7);
        byte[] header = EchoProtocol.header(EchoProtocol.REQUEST, request.length, request.length);
        c.write(header, 0, header.length);
        c.write(request, 0, request.length);
        byte[] answer = new byte[request.length];
        c.readFully(answer, 0, answer.length);
        return Arrays.equals(request, answer) ? null : "the echo came back altered";
      }
    } catch (Exception e) {
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      return engine.flag + " refused it: " + message;
    } finally {
      if (server != null) server.close();
    }
  }

  /**
   * This attempt with the suite as {@code engine} names it ({@link TlsEngine#suiteName}): JSSE's
   * SSL_ names for the SSL 3.0 suites.
   */
  public TlsAttempt inEngineNames() {
    return new TlsAttempt(engine, keyFlag, protocol, engine.suiteName(suite));
  }

  public String describe() {
    return suite
        + ", "
        + protocol
        + ", "
        + keyFlag.toUpperCase(Locale.ROOT).replace("RSA", "RSA-").replace("ECDSA-", "ECDSA ")
        + " server key";
  }
}
