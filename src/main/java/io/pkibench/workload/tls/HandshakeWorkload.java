package io.pkibench.workload.tls;

import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SingleKeyManager;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * One full TLS handshake between two JSSE {@code SSLEngine}s in memory, no sockets (the pix study's
 * first benchmark). The server's key is in memory (the test PKI's file); the client's comes from
 * the {@code --keys} source, so with {@code remote:} its one signature per mutual handshake goes to
 * the key server. Engines are made without a peer host, so no handshake resumes a session. Each
 * operation checks that both sides negotiated the same suite and protocol and saw the certificates
 * they should.
 */
public final class HandshakeWorkload implements Workload {
  private final SSLContext serverContext;
  private final SSLContext clientContext;

  /**
   * Each side's protocol, suite, client authentication and signature schemes, set up once and
   * applied to every engine.
   */
  private final SSLParameters serverParameters;

  private final SSLParameters clientParameters;
  private final String protocol;
  private final boolean mutual;
  private final X509Certificate serverCertificate;
  private final X509Certificate clientCertificate;

  HandshakeWorkload(
      SSLContext serverContext,
      SSLContext clientContext,
      String protocol,
      String suite,
      boolean mutual,
      X509Certificate serverCertificate,
      X509Certificate clientCertificate,
      String clientSignature) {
    this.serverContext = serverContext;
    this.clientContext = clientContext;
    this.protocol = protocol;
    this.mutual = mutual;
    this.serverCertificate = serverCertificate;
    this.clientCertificate = clientCertificate;
    this.serverParameters = parameters(serverContext, protocol, suite);
    serverParameters.setNeedClientAuth(mutual);
    this.clientParameters = parameters(clientContext, protocol, suite);
    // The client offers only this scheme (JDK 19+), so its CertificateVerify uses it. JSSE applies
    // the list to
    // certificates too, which suits PKCS#1 v1.5: every certificate of the test PKI is signed with
    // it.
    if (clientSignature != null)
      clientParameters.setSignatureSchemes(new String[] {clientSignature});
  }

  private static SSLParameters parameters(SSLContext context, String protocol, String suite) {
    SSLParameters p = context.getDefaultSSLParameters();
    p.setProtocols(new String[] {protocol});
    if (!suite.isEmpty()) p.setCipherSuites(new String[] {suite});
    return p;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "tls-handshake";
    }

    @Override
    public String description() {
      return "a full TLS handshake between two SSLEngines in memory, the client's key from --keys (one signature per mutual handshake);"
          + " with --target tls://HOST:PORT, full handshakes over real sockets to that server";
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> params =
          new ArrayList<>(
              List.of(
                  ParamSpec.free(
                      ParamSpec.TARGET,
                      IN_MEMORY,
                      IN_MEMORY
                          + ": both ends in memory; tls://HOST:PORT: full handshakes over real sockets to that server"
                          + " (connect, handshake, close), the client's identity from -p client or -p client-cert/-p client-key"),
                  ParamSpec.choice(
                      "resume",
                      "false",
                      "with --target: offer the last session again (session resumption)",
                      "false",
                      "true"),
                  ParamSpec.free("timeout", "10s", "with --target: connect and read timeout")));
      // engine, trust and identity as every TLS client workload takes them; protocol and suite are
      // this workload's own
      ClientTlsParams.specs().stream()
          .filter(p -> !p.name().equals("protocol") && !p.name().equals("suite"))
          .forEach(params::add);
      params.addAll(
          List.of(
              ParamSpec.choice(
                  "protocol",
                  "auto",
                  "TLS version both engines allow; auto: TLSv1.3 with --target and -p groups (the hybrid"
                      + " groups are TLS 1.3's), else TLSv1.2",
                  "auto",
                  "TLSv1.2",
                  "TLSv1.3"),
              ParamSpec.choice(
                  "mutual",
                  "true",
                  "whether the server asks for the client's certificate",
                  "true",
                  "false"),
              ParamSpec.choice(
                  "keyalg",
                  "rsa2048",
                  "the server's and the client's key type (tls-server / tls-client, or the P-256 tls-server-ecdsa-p256 / signer-ecdsa-p256-1)",
                  "rsa2048",
                  "ecdsa-p256"),
              ParamSpec.free(
                  "suite",
                  "",
                  "one cipher suite, IANA name (default: JSSE's choice for the protocol)"),
              ParamSpec.choice(
                  "client-signature",
                  "any",
                  "the client's CertificateVerify: JSSE's choice (RSASSA-PSS where the peer offers it),"
                      + " or RSASSA-PKCS1-v1_5 as the original's (TLS 1.2, RSA keys)",
                  "any",
                  "rsa_pkcs1_sha256"),
              ParamSpec.free(
                  WorkerClients.IDENTITIES,
                  "",
                  "with --target: one client identity per worker; per-worker: the test PKI issues each worker a"
                      + " certificate beside -p client's (kept in the PKI directory); DIR: a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key),"
                      + " one per worker in name order")));
      return params;
    }

    @Override
    public int socketsPerWorker(Params params) {
      return inMemory(params)
          ? 0
          : 1; // over sockets: one connection per handshake, closed before the next
    }

    @Override
    public List<String> workerProblems(Params params, int workers, String level) {
      return WorkerClients.workerProblems(params, workers, level);
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>(ClientTlsParams.problems(params));
      problems.addAll(WorkerClients.problems(params));
      if (inMemory(params)) {
        for (String p :
            List.of(
                "trust",
                "client",
                "client-cert",
                "client-key",
                "client-key-password-file",
                WorkerClients.IDENTITIES)) {
          if (!params.get(p).isEmpty())
            problems.add(
                "-p "
                    + p
                    + ": only with --target tls://HOST:PORT; in memory the client is tls-client from --keys");
        }
        if (ClientTlsParams.engine(params) != TlsEngine.JSSE)
          problems.add(
              "-p engine="
                  + params.get("engine")
                  + ": in memory both ends are JSSE; give --target to use it");
        if (params.get("resume").equals("true"))
          problems.add("-p resume=true: only with --target (in memory every handshake is full)");
      } else {
        if (!params.get("keyalg").equals("rsa2048")
            || !params.get("client-signature").equals("any")) {
          problems.add(
              "-p keyalg / -p client-signature: in-memory only; with --target the server's certificate and the client's key decide");
        }
      }
      return problems;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      if (!inMemory(params)) return overSockets(context, params);
      TestPki pki = context.pki().get();
      boolean ecdsa = params.get("keyalg").equals("ecdsa-p256");
      SigningKey server = serverKey(pki, ecdsa);
      SigningKey client = context.keys().key(ecdsa ? "signer-ecdsa-p256-1" : "tls-client");
      X509Certificate root = pki.certificate("root-ca");
      SSLContext serverContext = serverContext(server, root);
      SSLContext clientContext = SSLContext.getInstance("TLS");
      clientContext.init(
          new KeyManager[] {new SingleKeyManager(client)}, TlsContexts.trustManagers(root), null);
      String suite = params.get("suite");
      if (!suite.isEmpty()
          && !List.of(clientContext.getSupportedSSLParameters().getCipherSuites())
              .contains(suite)) {
        throw new IllegalArgumentException("-p suite=" + suite + ": JSSE does not implement it");
      }
      String signature = params.get("client-signature");
      if (signature.equals("rsa_pkcs1_sha256") && protocol(params).equals("TLSv1.3")) {
        throw new IllegalArgumentException(
            "-p client-signature=rsa_pkcs1_sha256: TLS 1.3 forbids PKCS#1 v1.5 in CertificateVerify; use -p protocol=TLSv1.2, or client-signature=any");
      }
      if (!signature.equals("any") && ecdsa) {
        throw new IllegalArgumentException(
            "-p client-signature="
                + signature
                + " is an RSA scheme; -p keyalg=ecdsa-p256 signs with ECDSA");
      }
      return new HandshakeWorkload(
          serverContext,
          clientContext,
          protocol(params),
          suite,
          Boolean.parseBoolean(params.get("mutual")),
          server.certificate(),
          client.certificate(),
          signature.equals("any") ? null : signature);
    }
  }

  /** The target's default: both ends of the handshake in this JVM. */
  static final String IN_MEMORY = "in-memory";

  /**
   * {@code -p protocol}, auto resolved: TLS 1.3 for groups over sockets (the hybrid groups exist in
   * TLS 1.3 only), else the original's 1.2.
   */
  static String protocol(Params params) {
    String protocol = params.get("protocol");
    if (!protocol.equals("auto")) return protocol;
    return !inMemory(params) && !params.get("groups").isBlank() ? "TLSv1.3" : "TLSv1.2";
  }

  private static boolean inMemory(Params params) {
    String target = params.get(ParamSpec.TARGET);
    return target.isEmpty() || target.equals(IN_MEMORY);
  }

  private static Workload overSockets(WorkloadContext context, Params params) throws Exception {
    String target = params.get(ParamSpec.TARGET);
    URI uri;
    try {
      uri = URI.create(target);
    } catch (IllegalArgumentException e) {
      uri = null;
    }
    if (uri == null
        || !"tls".equals(uri.getScheme())
        || uri.getHost() == null
        || uri.getPort() < 0) {
      throw new IllegalArgumentException(
          "--target " + target + ": write tls://HOST:PORT, e.g. tls://127.0.0.1:8444");
    }
    if (params.get("protocol").equals("auto")) {
      Map<String, String> resolved = new HashMap<>(params.asMap());
      resolved.put("protocol", protocol(params));
      params = Params.resolve("tls-handshake", new Factory().params(), resolved);
    }
    var client = ClientTlsParams.read(context, params);
    int timeout =
        (int) Math.min(Integer.MAX_VALUE, Durations.parse(params.get("timeout")).toMillis());
    return new SocketHandshakeWorkload(
        target,
        new InetSocketAddress(uri.getHost(), uri.getPort()),
        client.context(),
        Boolean.parseBoolean(params.get("resume")),
        params.get("protocol"),
        client.identity() == null ? null : client.identity().certificate(),
        timeout,
        WorkerClients.of(context, params, client));
  }

  static SigningKey serverKey(TestPki pki, boolean ecdsa) throws GeneralSecurityException {
    return new SoftwareKeySource(() -> pki, ProviderChoice.JDK)
        .key(ecdsa ? "tls-server-ecdsa-p256" : "tls-server");
  }

  /** The server side of the handshake: its key in memory, trusting only the test PKI's root. */
  public static SSLContext serverContext(TestPki pki, boolean ecdsa)
      throws GeneralSecurityException {
    return serverContext(serverKey(pki, ecdsa), pki.certificate("root-ca"));
  }

  private static SSLContext serverContext(SigningKey server, X509Certificate root)
      throws GeneralSecurityException {
    return TlsContexts.withIdentity(server, root);
  }

  @Override
  public Operation newOperation(int worker) {
    Buffers buffers = new Buffers();
    return () -> handshake(buffers);
  }

  /**
   * One worker's buffers, 64 KiB each (more than any handshake flight here), reused by every
   * handshake.
   */
  private static final class Buffers {
    ByteBuffer clientToServer = ByteBuffer.allocate(1 << 16);
    ByteBuffer serverToClient = ByteBuffer.allocate(1 << 16);
    ByteBuffer clientApp = ByteBuffer.allocate(1 << 16);
    ByteBuffer serverApp = ByteBuffer.allocate(1 << 16);
    final ByteBuffer empty = ByteBuffer.allocate(0);
  }

  private static SSLEngine engine(SSLContext context, SSLParameters parameters, boolean client) {
    SSLEngine e = context.createSSLEngine(); // no peer host and port: never resumes
    e.setUseClientMode(client);
    e.setSSLParameters(parameters);
    return e;
  }

  private void handshake(Buffers b) throws Exception {
    SSLEngine client = engine(clientContext, clientParameters, true);
    SSLEngine server = engine(serverContext, serverParameters, false);
    b.clientToServer.clear();
    b.serverToClient.clear();
    client.beginHandshake();
    server.beginHandshake();
    for (int round = 0; round < 100; round++) {
      boolean clientDone = done(client), serverDone = done(server);
      if (clientDone && serverDone) {
        check(client.getSession(), server.getSession());
        return;
      }
      step(client, b.empty, b.clientToServer, b.serverToClient, b.clientApp);
      step(server, b.empty, b.serverToClient, b.clientToServer, b.serverApp);
    }
    throw new SSLException(
        "the handshake did not finish in 100 rounds: client "
            + client.getHandshakeStatus()
            + ", server "
            + server.getHandshakeStatus());
  }

  private static boolean done(SSLEngine e) {
    return e.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING;
  }

  /**
   * Lets {@code engine} write what it has into {@code out} and read what its peer wrote into {@code
   * in}.
   */
  private static void step(
      SSLEngine engine, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer app)
      throws SSLException {
    for (int i = 0; i < 20; i++) {
      SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
      switch (status) {
        case NEED_TASK -> {
          Runnable task;
          while ((task = engine.getDelegatedTask()) != null) task.run();
        }
        case NEED_WRAP -> {
          SSLEngineResult r = engine.wrap(empty, out);
          if (r.getStatus() != SSLEngineResult.Status.OK)
            throw new SSLException("wrap: " + r.getStatus());
        }
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
          in.flip();
          SSLEngineResult r = engine.unwrap(in, app);
          in.compact();
          if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) return; // wait for the peer
          if (r.getStatus() == SSLEngineResult.Status.CLOSED)
            throw new SSLException("the peer closed the handshake: " + r);
          if (r.getStatus() != SSLEngineResult.Status.OK)
            throw new SSLException("unwrap: " + r.getStatus());
        }
        default -> {
          return;
        }
      }
    }
  }

  private void check(SSLSession client, SSLSession server) throws SSLException {
    if (!client.getCipherSuite().equals(server.getCipherSuite())
        || !client.getProtocol().equals(server.getProtocol())) {
      throw new SSLException(
          "the sides disagree: client "
              + client.getProtocol()
              + " "
              + client.getCipherSuite()
              + ", server "
              + server.getProtocol()
              + " "
              + server.getCipherSuite());
    }
    if (!client.getProtocol().equals(protocol))
      throw new SSLException("negotiated " + client.getProtocol() + ", not " + protocol);
    Certificate[] seenByClient = client.getPeerCertificates();
    if (!seenByClient[0].equals(serverCertificate))
      throw new SSLException("the client saw another server certificate");
    if (mutual) {
      Certificate[] seenByServer = server.getPeerCertificates();
      if (!seenByServer[0].equals(clientCertificate))
        throw new SSLException("the server saw another client certificate");
    }
  }
}
