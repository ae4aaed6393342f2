package io.pkibench.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.keys.remote.NodeAddress;
import io.pkibench.keys.remote.RemoteKeySource;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import io.pkibench.report.KeySourceShootout;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WycheproofCheck;
import io.pkibench.server.dss.DssServer;
import io.pkibench.server.keyserver.KeyGrants;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.server.keyserver.KeyService;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.OpensslServer;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.tls.HandshakeWorkload;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real PKCS#11: a SoftHSM2 token this test creates (SOFTHSM2_CONF is set by the build for the test
 * JVM, since the library reads it at load time), keys imported by 'pki init --pkcs11', signatures
 * made inside the token and verified by BouncyCastle.
 */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to a key server and a PKCS#11 token: a hang fails, said as one
class Pkcs11KeySourceTest {
  /**
   * Letters as well as digits: a digits-only PIN turns up by chance inside the numbers of a result
   * or a log (4711 did).
   */
  private static final String PIN = "s3cret-P1N";

  @TempDir static Path tmp;
  static Path config;
  static Path pinFile;
  static TestPki pki;

  @BeforeAll
  static void createToken() throws Exception {
    String conf = System.getenv("SOFTHSM2_CONF");
    assertTrue(conf != null, "SOFTHSM2_CONF must be set for the test JVM (the pom does it)");
    Path tokens =
        Files.createDirectories(Path.of(conf).getParent().resolve("tokens-" + System.nanoTime()));
    Files.writeString(
        Path.of(conf),
        "directories.tokendir = " + tokens + "\nobjectstore.backend = file\nlog.level = ERROR\n");
    Process p =
        new ProcessBuilder(
                "softhsm2-util",
                "--init-token",
                "--free",
                "--label",
                "pkibench",
                "--pin",
                PIN,
                "--so-pin",
                "123456")
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), "softhsm2-util (apt-get install softhsm2): " + output);
    Matcher slot = Pattern.compile("reassigned to slot (\\d+)").matcher(output);
    assertTrue(slot.find(), output);
    config =
        Files.writeString(
            tmp.resolve("softhsm.cfg"),
            "name = pkibench-test\nlibrary = "
                + softhsmLibrary()
                + "\nslot = "
                + slot.group(1)
                + "\n");
    pinFile = Files.writeString(tmp.resolve("pin"), PIN + "\n");
    pki =
        TestPki.init(
            tmp.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});

    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx = cli(out, err);
    int code =
        Main.execute(
            ctx,
            "pki",
            "init",
            "--dir",
            "pki",
            "--pkcs11",
            config.toString(),
            "--pin-file",
            pinFile.toString());
    assertEquals(0, code, err.toString());
    assertTrue(out.toString().contains("imported"), out.toString());
    assertFalse(
        out.toString().contains(PIN) || err.toString().contains(PIN),
        "the PIN never reaches output");
  }

  static String softhsmLibrary() {
    for (String candidate :
        List.of(
            "/usr/lib/softhsm/libsofthsm2.so",
            "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so")) {
      if (Files.exists(Path.of(candidate))) return candidate;
    }
    throw new IllegalStateException("libsofthsm2.so not found: apt-get install softhsm2");
  }

  /**
   * The token verifying, held to Project Wycheproof's vectors as the PKCS#11 runners of
   * awslabs/pkcs11-runners-for-project-wycheproof hold HSMs: SunPKCS11 hands each vector's public
   * key and signature to SoftHSM2's C_Verify. Every family the token offers is run; a valid vector
   * it refuses or an invalid one it verifies must be exactly the deviations named here. Found so
   * (JDK 25, SoftHSM2 2.6): RSA PKCS#1 and PSS agree with every vector; ECDSA verifies tcId 6 (s's
   * DER misses its leading 0, as SunEC does: the DER is read by the JDK before the token sees r and
   * s) and refuses every valid signature whose r and s are small (64 to 160 bits, or a few bytes):
   * which layer refuses them, SunPKCS11's DER-to-raw conversion or the token, is not settled here.
   * SoftHSM2 offers no Ed25519 through SunPKCS11.
   */
  @Test
  void tokenVerify_wycheproofVectors_validVerifiedInvalidRefused() throws Exception {
    Map<String, List<Integer>> knownDeviations =
        Map.of(
            "ecdsa-p256", List.of(6, 355, 356, 357, 358, 359, 360, 361, 362, 371, 372, 373, 374),
            "ecdsa-p384", List.of(6, 387, 388, 389, 390, 391, 392, 401, 402, 403, 404));
    List<String> run = new java.util.ArrayList<>();
    try (Pkcs11KeySource token = new Pkcs11KeySource(config, Secret.fromFile(pinFile))) {
      for (Wycheproof.Family family : Wycheproof.FAMILIES) {
        java.security.Provider provider;
        try {
          provider = token.provider("Signature", family.algorithm());
        } catch (GeneralSecurityException notOffered) {
          System.out.println(
              "wycheproof "
                  + family.file()
                  + " on the token: no "
                  + family.algorithm()
                  + ", not checked");
          continue;
        }
        List<Wycheproof.Wrong> wrong =
            Wycheproof.verifyAll(Wycheproof.vectors(family.file()), family.algorithm(), provider);
        System.out.println(
            "wycheproof "
                + family.file()
                + " on the token ("
                + provider.getName()
                + "): "
                + wrong.size()
                + " wrong "
                + wrong);
        assertEquals(
            knownDeviations.getOrDefault(family.alg(), List.of()),
            wrong.stream().map(Wycheproof.Wrong::tcId).toList(),
            family.alg() + " on the token: " + wrong);
        run.add(family.alg());
      }
    }
    assertTrue(
        run.containsAll(List.of("rsa2048", "rsa3072", "ecdsa-p256", "ecdsa-p384")),
        "the families a token signs with were all run: " + run);
  }

  @Test
  void key_signsInsideTokenAndBouncyCastleVerifies() throws Exception {
    try (Pkcs11KeySource token = new Pkcs11KeySource(config, Secret.fromFile(pinFile))) {
      for (String[] c :
          new String[][] {
            {"signer-rsa2048-1", "SHA256withRSA"}, {"signer-ecdsa-p256-1", "SHA256withECDSA"}
          }) {
        SigningKey key = token.key(c[0]);
        assertEquals("SunPKCS11-pkibench-test", key.provider().getName());
        assertEquals(
            pki.certificate(c[0]), key.certificate(), "the token holds the test PKI's certificate");
        byte[] data = "pay 100 BRL to 123".getBytes();
        Signature s = Signature.getInstance(c[1], key.provider());
        s.initSign(key.privateKey());
        s.update(data);
        byte[] signature = s.sign();

        Signature bc = Signature.getInstance(c[1], new BouncyCastleProvider());
        bc.initVerify(key.publicKey());
        bc.update(data);
        assertTrue(bc.verify(signature), c[0]);
        data[0] ^= 1;
        bc.initVerify(key.publicKey());
        bc.update(data);
        assertFalse(bc.verify(signature), "one flipped byte must fail: " + c[0]);
      }
    }
  }

  /**
   * The client's key in the token: CertificateVerify signed by SunPKCS11 on JSSE and, through the
   * private-key method, on BoringSSL.
   */
  @Test
  void tlsClientKeyInTheToken_mutualHandshakesWithOpensslServer_onBothEngines() throws Exception {
    try (Pkcs11KeySource token = new Pkcs11KeySource(config, Secret.fromFile(pinFile));
        var server =
            OpensslServer.start(
                pki,
                tmp,
                "-Verify",
                "1",
                "-verify_return_error",
                "-CAfile",
                pki.caChainPem().toString())) {
      var factory = new HandshakeWorkload.Factory();
      for (String engine : List.of("jsse", "openssl")) {
        var params =
            Params.resolve(
                "tls-handshake",
                factory.params(),
                Map.of(
                    "target",
                    "tls://127.0.0.1:" + server.port,
                    "client",
                    "tls-client",
                    "engine",
                    engine));
        try (var w = factory.create(new WorkloadContext(token, false, () -> pki), params)) {
          MeasuredRun.of("tls-handshake pkcs11 " + engine, w, java.time.Duration.ofMillis(700))
              .assertEverySucceeded();
        }
      }
      assertTrue(
          server.output().contains("tls-client"),
          "s_server saw the token's client certificate: " + server.output());
    }
  }

  @Test
  void key_unknownAlias_saysHowToImport() throws Exception {
    try (Pkcs11KeySource token = new Pkcs11KeySource(config, Secret.fromFile(pinFile))) {
      var e = assertThrows(GeneralSecurityException.class, () -> token.key("nobody"));
      assertTrue(e.getMessage().contains("pki init --pkcs11"), e.getMessage());
    }
  }

  @Test
  void open_wrongPin_saysLoginFailed() {
    var e =
        assertThrows(
            GeneralSecurityException.class,
            () -> new Pkcs11KeySource(config, Secret.of("0000".toCharArray())));
    assertTrue(e.getMessage().contains("login failed"), e.getMessage());
    assertFalse(e.getMessage().contains("0000"));
  }

  /**
   * EU DSS's REST signing with the client's key in the token: DSS gets only certificates and the
   * signature value.
   */
  @Test
  void run_dssCadesWithTokenKey_noFailures() throws Exception {
    try (var dss =
        DssServer.forTestPki(
            pki,
            new SoftwareKeySource(() -> pki, ProviderChoice.JDK),
            "127.0.0.1",
            0,
            InstantSource.system(),
            line -> {})) {
      dss.start();
      StringWriter out = new StringWriter(), err = new StringWriter();
      CliContext ctx = cli(out, err, Map.of(KeySources.PIN_ENV, PIN));
      int code =
          Main.execute(
              ctx,
              "run",
              "dss:cades",
              "-p",
              "size=8k",
              "--target",
              dss.baseUrl(),
              "--keys",
              "pkcs11:" + config,
              "--verify",
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--out",
              "dss-hsm.json",
              "--pki",
              "pki");
      assertEquals(0, code, err.toString());
      LevelResult l =
          RunResultJson.read(tmp.resolve("dss-hsm.json")).workloads().get(0).levels().get(0);
      assertTrue(l.counts().succeeded() > 0);
      assertEquals(0, l.counts().failed(), l.errors().toString());
    }
  }

  @Test
  void run_signThroughTokenWithVerify_noFailures() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx = cli(out, err, Map.of(KeySources.PIN_ENV, PIN));
    int code =
        Main.execute(
            ctx,
            "run",
            "sign",
            "-p",
            "alg=ecdsa-p256",
            "--keys",
            "pkcs11:" + config,
            "--verify",
            "--concurrency",
            "1,2",
            "--warmup",
            "0x1s",
            "--measure",
            "1x500ms",
            "--out",
            "hsm.json",
            "--pki",
            "pki");
    assertEquals(0, code, err.toString());
    RunResult r = RunResultJson.read(tmp.resolve("hsm.json"));
    assertEquals("pkcs11:" + config, r.workloads().get(0).keys());
    for (LevelResult l : r.workloads().get(0).levels()) {
      assertTrue(l.counts().succeeded() > 0);
      assertEquals(0, l.counts().failed(), l.errors().toString());
    }
    assertFalse(RunResultJson.toJson(r).contains(PIN), "the PIN never reaches the result");
    assertEquals(
        null,
        r.workloads().get(0).wycheproof(),
        "sign does not verify through the token: the run puts it to no vectors");
  }

  static final String ECDSA_MARK =
      "ecdsa-p256: accepts 1 invalid vector (tcId 6), rejects 12 valid vectors (tcId 355, 356, 357, 358, 359, …)";

  /**
   * Deliverable 9 for tokens: 'run verify' through the token puts it to the key type's Wycheproof
   * vectors first; the result records the verdict, the log and the shoot-out show the mark, and the
   * marked token is not recommended, faster or not. RSA-2048, where the token agrees with every
   * vector, is recorded as checked and clean.
   */
  @Test
  void runVerify_throughTheToken_recordsItsWycheproofMarksAndTheShootOutNeverRecommendsIt()
      throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx = cli(out, err, Map.of(KeySources.PIN_ENV, PIN));
    int code =
        Main.execute(
            ctx,
            "run",
            "verify",
            "-p",
            "alg=ecdsa-p256",
            "--keys",
            "software:bc,pkcs11:" + config,
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "2x300ms",
            "--out",
            "verify-hsm.json",
            "--pki",
            "pki");
    assertEquals(0, code, err.toString());
    RunResult r = RunResultJson.read(tmp.resolve("verify-hsm.json"));
    var token = r.workloads().get(1);
    assertEquals("pkcs11:" + config, token.keys());
    assertEquals(
        new WycheproofCheck("SunPKCS11-pkibench-test", List.of("ecdsa-p256"), List.of(ECDSA_MARK)),
        token.wycheproof());
    assertEquals(
        null,
        r.workloads().get(0).wycheproof(),
        "a software provider is checked by the report, not recorded");
    String o = out.toString() + err.toString();
    assertTrue(
        o.contains(
            "! pkcs11:"
                + config
                + " (SunPKCS11-pkibench-test): Project Wycheproof "
                + ECDSA_MARK
                + " - not recommended for ecdsa-p256"),
        o);
    var rows = KeySourceShootout.rows(r);
    var tokenRow =
        rows.stream().filter(x -> x.keys().equals("pkcs11:" + config)).findFirst().orElseThrow();
    assertEquals(List.of(ECDSA_MARK), tokenRow.wycheproof());
    assertEquals(
        "software:bc",
        KeySourceShootout.recommended(rows).get(tokenRow.workload()).keys(),
        "the marked token is never recommended");
    assertTrue(
        o.contains("pkcs11:" + config + " !")
            && o.contains(
                "! pkcs11:"
                    + config
                    + " ("
                    + tokenRow.workload()
                    + "): Wycheproof "
                    + ECDSA_MARK
                    + " - not recommended"),
        o);

    code =
        Main.execute(
            ctx,
            "run",
            "verify",
            "-p",
            "alg=rsa2048",
            "--keys",
            "pkcs11:" + config,
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x300ms",
            "--out",
            "verify-hsm-rsa.json",
            "--pki",
            "pki");
    assertEquals(0, code, err.toString());
    assertEquals(
        new WycheproofCheck("SunPKCS11-pkibench-test", List.of("rsa2048"), List.of()),
        RunResultJson.read(tmp.resolve("verify-hsm-rsa.json")).workloads().get(0).wycheproof(),
        "checked, and agrees with every vector");
  }

  /**
   * 'list --keys pkcs11:CONFIG' opens the token and marks it as 'list' marks a software provider;
   * bad --keys is refused naming the flag.
   */
  @Test
  void list_withTheToken_marksItsEcdsa_badKeysRefused() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx = cli(out, err);
    assertEquals(
        0,
        Main.execute(ctx, "list", "--keys", "pkcs11:" + config, "--pin-file", pinFile.toString()),
        err.toString());
    assertTrue(
        out.toString()
            .contains(
                "    pkcs11:"
                    + config
                    + " (SunPKCS11-pkibench-test)  [! Wycheproof: "
                    + ECDSA_MARK
                    + "; ecdsa-p384: accepts 1 invalid vector"),
        out.toString());
    assertFalse(out.toString().contains(PIN), "the PIN never reaches output");

    for (String[] bad :
        new String[][] {
          {"software:jdk", "list checks a PKCS#11 token, --keys pkcs11:CONFIG"},
          {
            "pkcs11:" + tmp.resolve("missing.cfg"),
            "--keys pkcs11:" + tmp.resolve("missing.cfg") + ": no such file"
          }
        }) {
      StringWriter badErr = new StringWriter();
      CliContext c =
          new CliContext(
              new PrintWriter(new StringWriter(), true),
              new PrintWriter(badErr, true),
              Map.of(),
              InstantSource.system(),
              tmp,
              false);
      assertEquals(
          2, Main.execute(c, "list", "--keys", bad[0], "--pin-file", pinFile.toString()), bad[0]);
      assertTrue(badErr.toString().contains(bad[1]), badErr.toString());
    }
  }

  /**
   * A key-server node whose keys are on the token: signing (digest sent, NONEwithRSA/ECDSA inside)
   * and RSA decryption through it.
   */
  @Test
  void keyServerNode_backedByTheToken_signsAndDecrypts() throws Exception {
    try (Pkcs11KeySource token = new Pkcs11KeySource(config, Secret.fromFile(pinFile))) {
      List<String> held = token.aliases();
      assertTrue(
          held.contains("signer-rsa2048-1") && held.contains("signer-ecdsa-p256-1"),
          held.toString());
      var service =
          new KeyService(
              token, held, KeyGrants.everyKeyFor(pki.certificate("tls-client")), line -> {});
      var software = new SoftwareKeySource(() -> pki, ProviderChoice.JDK);
      try (var node =
          new KeyServer(
              service,
              software.key("keyserver"),
              pki.certificate("root-ca"),
              "127.0.0.1",
              0,
              KeyServer.Limits.defaults())) {
        node.start();
        try (var remote =
            new RemoteKeySource(
                List.of(new NodeAddress("127.0.0.1", node.port(), 1)),
                software.key("tls-client"),
                pki.certificate("root-ca"),
                InstantSource.system(),
                line -> {})) {
          for (String[] c :
              new String[][] {
                {"signer-rsa2048-1", "SHA256withRSA"}, {"signer-ecdsa-p256-1", "SHA256withECDSA"}
              }) {
            SigningKey key = remote.key(c[0]);
            byte[] data = "pay 100 BRL to 123".getBytes();
            Signature s = Signature.getInstance(c[1], key.provider());
            s.initSign(key.privateKey());
            s.update(data);
            Signature bc = Signature.getInstance(c[1], new BouncyCastleProvider());
            bc.initVerify(key.publicKey());
            bc.update(data);
            assertTrue(bc.verify(s.sign()), c[0] + " signed on the token behind the node");
          }
          SigningKey rsa = remote.key("signer-rsa2048-1");
          javax.crypto.Cipher encrypt =
              javax.crypto.Cipher.getInstance("RSA/ECB/PKCS1Padding", new BouncyCastleProvider());
          encrypt.init(javax.crypto.Cipher.ENCRYPT_MODE, rsa.publicKey());
          javax.crypto.Cipher decrypt =
              javax.crypto.Cipher.getInstance("RSA/ECB/PKCS1Padding", rsa.provider());
          decrypt.init(javax.crypto.Cipher.DECRYPT_MODE, rsa.privateKey());
          assertEquals(
              "session key",
              new String(decrypt.doFinal(encrypt.doFinal("session key".getBytes()))));
        }
      }
    }
  }

  /**
   * A wrong PIN is bad input (docs/cli-grammar.md: exit 2, nothing run), found before the run
   * starts, not a "failed" result and exit 1.
   */
  @Test
  void run_wrongPin_exit2BeforeAnythingRuns() throws Exception {
    Path wrong = Files.writeString(tmp.resolve("wrong-pin.txt"), "not-the-pin\n");
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx = cli(out, err);
    int code =
        Main.execute(
            ctx,
            "run",
            "sign",
            "-p",
            "alg=ecdsa-p256",
            "--keys",
            "pkcs11:" + config,
            "--pin-file",
            wrong.toString(),
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x100ms",
            "-o",
            "wrong-pin.json");
    assertEquals(2, code, err.toString());
    assertTrue(err.toString().contains("--keys pkcs11:"), err.toString());
    assertFalse(err.toString().contains("not-the-pin"), "the PIN never printed: " + err);
    assertFalse(Files.exists(tmp.resolve("wrong-pin.json")), "nothing run, nothing written");
  }

  /** As {@link #run_wrongPin_exit2BeforeAnythingRuns}, for a study: no service started. */
  @Test
  void study_wrongPin_exit2BeforeAnyServiceStarts() throws Exception {
    Path wrong = Files.writeString(tmp.resolve("wrong-pin-study.txt"), "not-the-study-pin\n");
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx = cli(out, err);
    int code =
        Main.execute(
            ctx,
            "study",
            "restpki",
            "--smoke",
            "--keys",
            "pkcs11:" + config,
            "--pin-file",
            wrong.toString(),
            "-o",
            "wrong-pin-study.json");
    assertEquals(2, code, err.toString() + out);
    assertTrue(err.toString().contains("--keys pkcs11:"), err.toString());
    assertFalse(
        (err.toString() + out).contains("not-the-study-pin"), "the PIN never printed: " + err);
    assertFalse((err.toString() + out).contains("service "), "no service started: " + err + out);
    assertFalse(Files.exists(tmp.resolve("wrong-pin-study.json")), "nothing run, nothing written");
  }

  /**
   * The CLI's context for a command run in this JVM, its output caught, files under the class's
   * directory.
   */
  static CliContext cli(StringWriter out, StringWriter err) {
    return cli(out, err, Map.of());
  }

  static CliContext cli(StringWriter out, StringWriter err, Map<String, String> env) {
    return new CliContext(
        new PrintWriter(out, true),
        new PrintWriter(err, true),
        env,
        InstantSource.system(),
        tmp,
        false);
  }
}
