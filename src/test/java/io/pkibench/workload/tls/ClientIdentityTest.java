package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.remote.NodeAddress;
import io.pkibench.keys.remote.RemoteKeySource;
import io.pkibench.results.RunResultJson;
import io.pkibench.server.keyserver.KeyGrants;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.server.keyserver.KeyService;
import io.pkibench.testing.Await;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.OpensslServer;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's identity and trust over real sockets, against {@code openssl s_server -Verify 1} (a
 * server we did not write that demands a client certificate): the client's key on a key-server node
 * in this JVM, signed there for every handshake on both engines; no certificate, an untrusted one,
 * a wrong trust bundle counted as failures naming the reason; bad files refused before the run,
 * naming the flag.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class ClientIdentityTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static KeyServer node;
  static RemoteKeySource remote;
  static Path selfSignedCert;
  static Path selfSignedKey;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = TestKeys.in(dir);
    var keys = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK);
    var service =
        new KeyService(
            keys,
            keys.aliases(),
            KeyGrants.everyKeyFor(fixture.pki.certificate("tls-client")),
            line -> {});
    node =
        new KeyServer(
            service,
            keys.key("keyserver"),
            fixture.pki.certificate("root-ca"),
            "127.0.0.1",
            0,
            KeyServer.Limits.defaults());
    node.start();
    remote =
        new RemoteKeySource(
            List.of(new NodeAddress("127.0.0.1", node.port(), 1)),
            keys.key("tls-client"),
            fixture.pki.certificate("root-ca"),
            InstantSource.system(),
            line -> {});
    selfSignedCert = dir.resolve("stranger.pem");
    selfSignedKey = dir.resolve("stranger.key");
    String r =
        Openssl.run(
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=stranger",
            "-days",
            "2",
            "-keyout",
            selfSignedKey.toString(),
            "-out",
            selfSignedCert.toString());
    assertTrue(Openssl.succeeded(r), r);
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (remote != null) remote.close();
    if (node != null) node.close();
  }

  static Workload handshakes(WorkloadContext context, int port, String... params) throws Exception {
    Map<String, String> given = new HashMap<>(Map.of("target", "tls://127.0.0.1:" + port));
    for (int i = 0; i < params.length; i += 2) given.put(params[i], params[i + 1]);
    WorkloadFactory factory = new HandshakeWorkload.Factory();
    Params p = Params.resolve(factory.name(), factory.params(), given);
    assertEquals(List.of(), factory.problems(p, "remote"));
    return factory.create(context, p);
  }

  WorkloadContext remoteKeys() {
    return new WorkloadContext(remote, false, () -> fixture.pki);
  }

  @Test
  void remoteKey_againstOpensslDemandingACertificate_serverSeesTheClientAndTheNodeSignsEach()
      throws Exception {
    for (String[] engineAndProtocol :
        List.of(
            new String[] {"jsse", "TLSv1.3"},
            new String[] {"openssl", "TLSv1.2"},
            new String[] {"openssl", "TLSv1.3"})) {
      try (OpensslServer server =
          OpensslServer.start(
              fixture, dir, "-Verify", "1", "-CAfile", fixture.pki.caChainPem().toString())) {
        long signedBefore = node.counts().served();
        MeasuredRun run;
        try (Workload w =
            handshakes(
                remoteKeys(),
                server.port,
                "client",
                "tls-client",
                "engine",
                engineAndProtocol[0],
                "protocol",
                engineAndProtocol[1])) {
          run = MeasuredRun.of("tls-handshake", w, Duration.ofMillis(600)).assertEverySucceeded();
        }
        String what = String.join(" ", engineAndProtocol);
        assertTrue(
            node.counts().served() - signedBefore >= run.succeeded(),
            what
                + ": every CertificateVerify was signed on the key server: "
                + node.counts()
                + " for "
                + run.succeeded()
                + " handshakes");
        assertTrue(
            server.output().contains("depth=0") && server.output().contains("tls-client"),
            what + ": s_server saw the client's certificate: " + server.output());
      }
    }
  }

  /**
   * The node holding the client's key dies mid-run: the handshakes after it fail, counted with
   * their reason, and the run goes on.
   */
  @Test
  void keyServerDyingMidRun_laterHandshakesCountedFailed_runGoesOn() throws Exception {
    var keys = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK);
    var service =
        new KeyService(
            keys,
            keys.aliases(),
            KeyGrants.everyKeyFor(fixture.pki.certificate("tls-client")),
            line -> {});
    KeyServer dying =
        new KeyServer(
            service,
            keys.key("keyserver"),
            fixture.pki.certificate("root-ca"),
            "127.0.0.1",
            0,
            KeyServer.Limits.defaults());
    dying.start();
    try (var source =
            new RemoteKeySource(
                List.of(new NodeAddress("127.0.0.1", dying.port(), 1)),
                keys.key("tls-client"),
                fixture.pki.certificate("root-ca"),
                InstantSource.system(),
                line -> {});
        OpensslServer server =
            OpensslServer.start(
                fixture, dir, "-Verify", "1", "-CAfile", fixture.pki.caChainPem().toString())) {
      WorkloadContext context = new WorkloadContext(source, false, () -> fixture.pki);
      // both made while the node is up: the key is found then; the second runs wholly after the
      // node died
      Map<String, Workload> workloads = new java.util.LinkedHashMap<>();
      for (String engine : List.of("jsse", "openssl"))
        workloads.put(
            engine, handshakes(context, server.port, "client", "tls-client", "engine", engine));
      long callsBefore = source.nodes().get(0).calls(); // the key lookups above
      // the node dies once the first run's handshakes have signed through it twice, not after a
      // guessed pause
      Thread killer =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      Await.until(
                          Duration.ofSeconds(30),
                          "two signatures through the node",
                          () -> source.nodes().get(0).calls() >= callsBefore + 2);
                    } catch (Throwable notCalled) {
                      // the run's own assertions below say what it saw
                    }
                    dying.close();
                  });
      for (var e : workloads.entrySet()) {
        MeasuredRun run;
        try (Workload w = e.getValue()) {
          run = MeasuredRun.of("node dies " + e.getKey(), w, Duration.ofMillis(1500));
        }
        killer.join();
        assertEquals(run.started(), run.succeeded() + run.failed(), run.toString());
        assertTrue(
            run.failed() > 1,
            e.getKey()
                + ": handshakes after the node died are counted failed, the run going on: "
                + run);
        if (e.getKey().equals("jsse"))
          assertTrue(run.succeeded() > 0, "handshakes before it passed: " + run);
        assertTrue(
            run.errors().keySet().stream()
                .allMatch(
                    cause ->
                        cause.contains(
                            "TLS handshake with tls://127.0.0.1:" + server.port + " failed")),
            "each failure names the handshake it broke: " + run.errors());
        assertTrue(
            run.errors().keySet().stream().anyMatch(cause -> cause.contains("KeyServerException")),
            "and, below it, the key server: " + run.errors());
      }
    }
  }

  @Test
  void
      noOrUntrustedClientCertificate_againstOpensslDemandingOne_everyHandshakeCountedFailedWithTheAlert()
          throws Exception {
    WorkloadContext context = new WorkloadContext(fixture.keys, false, () -> fixture.pki);
    // -verify_return_error: s_server otherwise logs a certificate it cannot verify and carries on
    try (OpensslServer server =
        OpensslServer.start(
            fixture,
            dir,
            "-Verify",
            "1",
            "-verify_return_error",
            "-CAfile",
            fixture.pki.caChainPem().toString())) {
      for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
        for (String engine : List.of("jsse", "openssl")) {
          try (Workload w =
              handshakes(context, server.port, "engine", engine, "protocol", protocol)) {
            assertEveryFailedWithAnAlert(
                MeasuredRun.of(
                    "no certificate " + engine + " " + protocol, w, Duration.ofSeconds(1)));
          }
        }
      }
      try (Workload w =
          handshakes(
              context,
              server.port,
              "protocol",
              "TLSv1.3",
              "client-cert",
              selfSignedCert.toString(),
              "client-key",
              selfSignedKey.toString())) {
        assertEveryFailedWithAnAlert(
            MeasuredRun.of("untrusted certificate", w, Duration.ofSeconds(1)));
      }
    }
  }

  /**
   * Each engine words the server's alert its own way (JSSE "Received fatal alert", BoringSSL
   * "SSLV3_ALERT_...").
   */
  static void assertEveryFailedWithAnAlert(MeasuredRun run) {
    assertTrue(
        run.started() > 1 && run.succeeded() == 0 && run.failed() == run.started(), run.toString());
    assertTrue(
        run.errors().keySet().stream()
            .allMatch(cause -> cause.toLowerCase(java.util.Locale.ROOT).contains("alert")),
        run.errors().toString());
  }

  @Test
  void wrongTrustBundle_everyHandshakeCountedFailedNamingTheServerCertificate() throws Exception {
    WorkloadContext context = new WorkloadContext(fixture.keys, false, () -> fixture.pki);
    try (OpensslServer server = OpensslServer.start(fixture, dir)) {
      for (String engine : List.of("jsse", "openssl")) {
        try (Workload w =
            handshakes(
                context, server.port, "engine", engine, "trust", selfSignedCert.toString())) {
          MeasuredRun.of("wrong trust " + engine, w)
              .assertEveryFailedWith(
                  "TLS handshake with tls://127.0.0.1:" + server.port + " failed");
        }
      }
      // the same server with the right bundle given as a file: it passes, so the failures above are
      // the bundle's
      try (Workload w =
          handshakes(context, server.port, "trust", fixture.pki.caChainPem().toString())) {
        MeasuredRun.of("right trust", w).assertEverySucceeded();
      }
    }
  }

  @Test
  void badFiles_refusedBeforeTheRun_namingTheFlag() throws Exception {
    Path otherKey = OpensslServer.serverKeyPem(fixture, dir); // tls-server's key: not tls-client's
    Path notPem = Files.writeString(dir.resolve("junk.txt"), "not a certificate");
    Path p12 = fixture.pki.keystore("tls-client");
    Path badPassword = Files.writeString(dir.resolve("bad.pass"), "wrong\n");
    Map<List<String>, String> cases =
        Map.of(
            List.of("trust", dir.resolve("missing.pem").toString()), "-p trust=",
            List.of("trust", notPem.toString()),
                "-p trust=" + notPem + ": holds no X.509 certificate",
            List.of(
                    "client-cert",
                    fixture.pki.certificatePem("tls-client").toString(),
                    "client-key",
                    otherKey.toString()),
                "does not belong to the certificate",
            List.of(
                    "client-cert",
                    fixture.pki.certificatePem("tls-client").toString(),
                    "client-key",
                    p12.toString()),
                "-p client-key-password-file",
            List.of(
                    "client-cert",
                    fixture.pki.certificatePem("tls-client").toString(),
                    "client-key",
                    p12.toString(),
                    "client-key-password-file",
                    badPassword.toString()),
                "not a PKCS#12 file this password opens",
            List.of("client-cert", fixture.pki.certificatePem("tls-client").toString()),
                "-p client-cert and -p client-key go together",
            List.of(
                    "client",
                    "tls-client",
                    "client-cert",
                    selfSignedCert.toString(),
                    "client-key",
                    selfSignedKey.toString()),
                "give one identity");
    for (String workload : List.of("tls-rr", "tls-handshake")) {
      WorkloadFactory factory =
          workload.equals("tls-rr")
              ? new TlsWorkload.Factory(TlsWorkload.Kind.RR)
              : new HandshakeWorkload.Factory();
      for (var c : cases.entrySet()) {
        Map<String, String> given = new HashMap<>(Map.of("target", "tls://127.0.0.1:1"));
        for (int i = 0; i < c.getKey().size(); i += 2)
          given.put(c.getKey().get(i), c.getKey().get(i + 1));
        List<String> problems =
            factory.problems(Params.resolve(workload, factory.params(), given), "software");
        assertTrue(
            problems.stream().anyMatch(p -> p.contains(c.getValue())),
            workload + " " + c.getKey() + ": expected '" + c.getValue() + "' in " + problems);
      }
    }
    // the right pair, as PEM and as PKCS#12 with its password file, is accepted
    WorkloadFactory rr = new TlsWorkload.Factory(TlsWorkload.Kind.RR);
    assertEquals(
        List.of(),
        rr.problems(
            Params.resolve(
                "tls-rr",
                rr.params(),
                Map.of(
                    "target",
                    "tls://127.0.0.1:1",
                    "client-cert",
                    fixture.pki.certificatePem("tls-client").toString(),
                    "client-key",
                    p12.toString(),
                    "client-key-password-file",
                    fixture.pki.dir().resolve("keystore.pass").toString())),
            "software"));
  }

  /**
   * {@code -p client-key-password-env=VAR}: {@code run tls-handshake} as a user types it, the
   * PKCS#12 password in the environment only, mutual TLS against s_server demanding a certificate;
   * the password is in neither the output nor the result. The variable unset, the run stops naming
   * the flag; a password given as the value is refused without being echoed.
   */
  @Test
  void pkcs12PasswordFromTheEnvironment_handshakesPass_passwordNowhereInOutputOrResult()
      throws Exception {
    String password = new String(fixture.pki.keystorePassword().chars());
    java.io.StringWriter out = new java.io.StringWriter(), err = new java.io.StringWriter();
    java.util.function.BiFunction<Map<String, String>, String[], Integer> cli =
        (env, args) ->
            Main.execute(
                new CliContext(
                    new java.io.PrintWriter(out, true),
                    new java.io.PrintWriter(err, true),
                    env,
                    InstantSource.system(),
                    dir,
                    false),
                args);
    try (OpensslServer server =
        OpensslServer.start(
            fixture,
            dir,
            "-Verify",
            "1",
            "-verify_return_error",
            "-CAfile",
            fixture.pki.caChainPem().toString())) {
      java.util.function.Function<String, String[]> args =
          variable ->
              new String[] {
                "run",
                "tls-handshake",
                "--target",
                "tls://127.0.0.1:" + server.port,
                "--pki",
                fixture.pki.dir().toString(),
                "-p",
                "client-cert=" + fixture.pki.certificatePem("tls-client"),
                "-p",
                "client-key=" + fixture.pki.keystore("tls-client"),
                "-p",
                "client-key-password-env=" + variable,
                "--concurrency",
                "1",
                "--warmup",
                "0x1s",
                "--measure",
                "1x1s",
                "--quiet",
                "--out",
                "env.json"
              };
      assertEquals(
          0,
          cli.apply(
              Map.of("PATH", System.getenv("PATH"), "CLIENT_P12_PASSWORD", password),
              args.apply("CLIENT_P12_PASSWORD")),
          err.toString());
      var result = RunResultJson.read(dir.resolve("env.json"));
      var counts = result.workloads().get(0).levels().get(0).counts();
      assertTrue(
          counts.succeeded() > 0 && counts.failed() == 0,
          "mutual TLS with the key the environment's password opened: " + counts);
      assertTrue(
          server.output().contains("tls-client"),
          "s_server saw the client's certificate: " + server.output());
      String written = Files.readString(dir.resolve("env.json")) + out + err;
      assertTrue(
          !written.contains(password) && written.contains("CLIENT_P12_PASSWORD"),
          "the variable's name is recorded, its value never");

      // found when the key is opened, before the first handshake (the checks before a run see no
      // environment): the run stops, failed
      assertEquals(
          1,
          cli.apply(Map.of("PATH", System.getenv("PATH")), args.apply("CLIENT_P12_PASSWORD")),
          out.toString());
      assertTrue(
          (out.toString() + err)
              .contains(
                  "-p client-key-password-env=CLIENT_P12_PASSWORD: the environment has no CLIENT_P12_PASSWORD"),
          out.toString() + err);
      err.getBuffer().setLength(0);
      assertEquals(2, cli.apply(Map.of(), args.apply("hunter2!")), out.toString());
      assertTrue(
          err.toString()
                  .contains("-p client-key-password-env: give the NAME of an environment variable")
              && !err.toString().contains("hunter2!"),
          "refused, the value not echoed: " + err);
    }
  }

  /**
   * An Ed25519 client key (the test PKI's signer-ed25519-1, clientAuth among its purposes) against
   * s_server demanding a certificate: BoringSSL presents it, from its bytes and through the key
   * server (netty offered it only RSA and EC key types, so it sent no certificate); JSSE presents
   * the JDK's key, and a key server's, which JSSE cannot take, is refused before the run naming the
   * engine and the fix.
   */
  @Test
  void ed25519ClientKey_boringSslPresentsItLocalOrRemote_jsseRemoteRefusedNamingTheFix()
      throws Exception {
    var jdkKeys =
        new WorkloadContext(
            new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK), false, () -> fixture.pki);
    try (OpensslServer server =
        OpensslServer.start(
            fixture,
            dir,
            "-Verify",
            "1",
            "-verify_return_error",
            "-CAfile",
            fixture.pki.caChainPem().toString())) {
      for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
        for (WorkloadContext context : List.of(jdkKeys, remoteKeys())) {
          long signed = node.counts().served();
          try (Workload w =
              handshakes(
                  context,
                  server.port,
                  "client",
                  "signer-ed25519-1",
                  "engine",
                  "openssl",
                  "protocol",
                  protocol)) {
            MeasuredRun.of(
                    "ed25519 openssl " + protocol + " " + context.keys().describe(),
                    w,
                    Duration.ofMillis(500))
                .assertEverySucceeded();
          }
          if (context.keys() == remote)
            assertTrue(node.counts().served() > signed, "the key server signed: " + node.counts());
        }
      }
      try (Workload w =
          handshakes(
              jdkKeys,
              server.port,
              "client",
              "signer-ed25519-1",
              "engine",
              "jsse",
              "protocol",
              "TLSv1.3")) {
        MeasuredRun.of("ed25519 jsse", w, Duration.ofMillis(500)).assertEverySucceeded();
      }
      assertTrue(
          server.output().contains("signer-ed25519-1"),
          "s_server saw the Ed25519 certificate: " + server.output());
      IllegalArgumentException refused =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class,
              () ->
                  handshakes(
                          remoteKeys(), server.port, "client", "signer-ed25519-1", "engine", "jsse")
                      .close());
      assertTrue(
          refused
                  .getMessage()
                  .startsWith(
                      "-p client=signer-ed25519-1 with -p engine=jsse: the jsse engine cannot present the Ed25519 key")
              && refused.getMessage().contains("use -p engine=openssl"),
          refused.getMessage());
    }
  }
}
