package io.pkibench.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.session.ForkedSeries;
import io.pkibench.testing.Await;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remote PKCS#11: a real {@code p11-kit server} (Debian's p11-kit) serving a SoftHSM2 token this
 * test makes, on a Unix socket in the test's directory, reached through p11-kit-client.so by
 * SunPKCS11. The client module reads {@code P11_KIT_SERVER_ADDRESS} when it loads, so everything
 * that loads it runs in a JVM this test starts with that environment (the pkibench command starts
 * its own).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES) // child JVMs and a server: a hang fails, said as one
class P11KitRemoteTest {
  /** Letters as well as digits, so that it cannot turn up by chance among a result's numbers. */
  private static final String PIN = "p11-kit-P1N";

  private static final Duration CHILD_WITHIN = Duration.ofSeconds(120);

  @TempDir static Path tmp;
  static Path softhsmConf;
  static Path socket;
  static Path config;
  static Path pinFile;
  static TestPki pki;
  static final List<Process> started = new ArrayList<>();

  @BeforeAll
  static void serveAToken() throws Exception {
    Path tokens = Files.createDirectories(tmp.resolve("tokens"));
    softhsmConf =
        Files.writeString(
            tmp.resolve("softhsm2.conf"),
            "directories.tokendir = "
                + tokens
                + "\nobjectstore.backend = file\nlog.level = ERROR\n");
    ProcessBuilder init =
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
            .redirectErrorStream(true);
    init.environment().put("SOFTHSM2_CONF", softhsmConf.toString());
    Process p = init.start();
    String output = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), "softhsm2-util (apt-get install softhsm2): " + output);

    socket = tmp.resolve("p11kit.sock");
    startServer(socket);
    config =
        Files.writeString(
            tmp.resolve("remote.cfg"),
            "name = p11kit\nlibrary = " + clientLibrary() + "\nslotListIndex = 0\n");
    pinFile = Files.writeString(tmp.resolve("pin"), PIN + "\n");
    pki =
        TestPki.init(
            tmp.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
    // The test PKI's keys go into the token through the server too: C_CreateObject over p11-kit's
    // RPC.
    String imported =
        child(
            List.of(
                "pki", "init", "--dir", "pki", "--pkcs11", config.toString(), "--pin-file", "pin"),
            Map.of(P11KitAddress.ENV, "unix:path=" + socket),
            0);
    assertTrue(imported.contains("imported"), imported);
    assertFalse(imported.contains(PIN), "the PIN never reaches output");
  }

  /** Starts {@code p11-kit server} in the foreground on {@code at}; waits for its socket. */
  static Process startServer(Path at) throws Exception {
    ProcessBuilder server =
        new ProcessBuilder(
                "p11-kit",
                "server",
                "--foreground",
                "--name",
                at.toString(),
                "--provider",
                Pkcs11KeySourceTest.softhsmLibrary(),
                "pkcs11:token=pkibench")
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve(at.getFileName() + ".log").toFile());
    server.environment().put("SOFTHSM2_CONF", softhsmConf.toString());
    Process p;
    try {
      p = server.start();
    } catch (IOException e) {
      throw new AssertionError("p11-kit is missing: apt-get install p11-kit", e);
    }
    started.add(p);
    Await.until(Duration.ofSeconds(20), "p11-kit server's socket " + at, () -> Files.exists(at));
    return p;
  }

  static String clientLibrary() {
    for (String candidate :
        List.of(
            "/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so",
            "/usr/lib/aarch64-linux-gnu/pkcs11/p11-kit-client.so",
            "/usr/lib/pkcs11/p11-kit-client.so")) {
      if (Files.exists(Path.of(candidate))) return candidate;
    }
    throw new IllegalStateException(
        "p11-kit-client.so not found: apt-get install p11-kit (it brings p11-kit-modules)");
  }

  @AfterAll
  static void stopServers() throws Exception {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroy();
      if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Runs pkibench's main, or {@code mainClass}, in a child JVM in {@code tmp} with {@code env}
   * added (the PIN from the file, or from the environment when {@code env} says), bounded; asserts
   * its exit code and returns its output.
   */
  static String child(List<String> args, Map<String, String> env, int expectedExit)
      throws Exception {
    List<String> cmd = new ArrayList<>(ForkedSeries.thisJvm());
    cmd.addAll(args);
    return run(cmd, env, expectedExit);
  }

  static String childMain(Class<?> mainClass, List<String> args, Map<String, String> env, int exit)
      throws Exception {
    List<String> cmd = new ArrayList<>(ForkedSeries.thisJvm());
    cmd.set(cmd.size() - 1, mainClass.getName());
    cmd.addAll(args);
    return run(cmd, env, exit);
  }

  private static String run(List<String> cmd, Map<String, String> env, int expectedExit)
      throws Exception {
    ProcessBuilder b = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true);
    b.environment().remove(P11KitAddress.ENV);
    b.environment().putAll(env);
    Process p = b.start();
    try {
      String out = new String(p.getInputStream().readAllBytes());
      assertTrue(p.waitFor(CHILD_WITHIN.toSeconds(), TimeUnit.SECONDS), "child JVM hung: " + out);
      assertEquals(expectedExit, p.exitValue(), out);
      return out;
    } finally {
      // the JVM the pkibench command starts again with the address, too, should the child hang
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  /**
   * A child JVM's main: opens the token as {@code --keys pkcs11:CONFIG} does, with this JVM's
   * environment, signs {@code DATA} with each key given, and writes each signature and the token's
   * certificate; a failure to open is printed and exits 3.
   */
  public static final class SignThroughToken {
    public static void main(String[] args) throws Exception {
      Path config = Path.of(args[0]), pin = Path.of(args[1]), out = Path.of(args[2]);
      Pkcs11KeySource token;
      try {
        token = new Pkcs11KeySource(config, Secret.fromFile(pin), System.getenv());
      } catch (GeneralSecurityException e) {
        System.out.println("refused: " + e.getMessage());
        System.exit(3);
        return;
      }
      try (token) {
        System.out.println("opened " + token.describe());
        for (int i = 3; i + 1 < args.length; i += 2) {
          SigningKey key = token.key(args[i]);
          Signature s = Signature.getInstance(args[i + 1], key.provider());
          s.initSign(key.privateKey());
          s.update(DATA);
          Files.write(out.resolve(args[i] + ".sig"), s.sign());
          Files.write(out.resolve(args[i] + ".crt"), key.certificate().getEncoded());
          System.out.println("signed with " + args[i] + " by " + key.provider().getName());
        }
      }
    }
  }

  static final byte[] DATA = "pay 100 BRL to 123".getBytes();

  @Test
  void sign_throughTheP11KitServer_bouncyCastleVerifiesWithTheTokensPublicKey() throws Exception {
    Path out = Files.createDirectories(tmp.resolve("signed"));
    String said =
        childMain(
            SignThroughToken.class,
            List.of(
                config.toString(),
                pinFile.toString(),
                out.toString(),
                "signer-rsa2048-1",
                "SHA256withRSA",
                "signer-ecdsa-p256-1",
                "SHA256withECDSA"),
            Map.of(P11KitAddress.ENV, "unix:path=" + socket),
            0);
    assertTrue(said.contains("opened pkcs11:" + config + ",remote=unix:path=" + socket), said);
    assertTrue(said.contains("signed with signer-ecdsa-p256-1 by SunPKCS11-p11kit"), said);
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    for (String[] c :
        new String[][] {
          {"signer-rsa2048-1", "SHA256withRSA"}, {"signer-ecdsa-p256-1", "SHA256withECDSA"}
        }) {
      X509Certificate tokens =
          (X509Certificate)
              x509.generateCertificate(
                  new ByteArrayInputStream(Files.readAllBytes(out.resolve(c[0] + ".crt"))));
      assertEquals(pki.certificate(c[0]), tokens, "the token holds the test PKI's certificate");
      byte[] signature = Files.readAllBytes(out.resolve(c[0] + ".sig"));
      Signature bc = Signature.getInstance(c[1], new BouncyCastleProvider());
      bc.initVerify(tokens.getPublicKey());
      bc.update(DATA);
      assertTrue(bc.verify(signature), c[0] + " signed through p11-kit verifies");
      byte[] flipped = DATA.clone();
      flipped[0] ^= 1;
      bc.initVerify(tokens.getPublicKey());
      bc.update(flipped);
      assertFalse(bc.verify(signature), "one flipped byte must fail: " + c[0]);
    }
  }

  /**
   * The pkibench command given {@code remote=} starts its JVM again with the address (it is not in
   * the environment it was started with) and the run signs through the server with no failure.
   */
  @Test
  void runSign_keysWithRemote_startsItsJvmWithTheAddress_noFailures() throws Exception {
    String keys = "pkcs11:" + config + ",remote=unix:path=" + socket;
    String said =
        child(
            List.of(
                "run",
                "sign",
                "-p",
                "alg=rsa2048",
                "--keys",
                keys,
                "--verify",
                "--concurrency",
                "1,2",
                "--warmup",
                "0x1s",
                "--measure",
                "1x500ms",
                "--out",
                "remote.json",
                "--pki",
                "pki"),
            Map.of(KeySources.PIN_ENV, PIN),
            0);
    assertTrue(
        said.contains(
            "pkibench: starting its JVM again with " + P11KitAddress.ENV + "=unix:path=" + socket),
        said);
    RunResult r = RunResultJson.read(tmp.resolve("remote.json"));
    assertEquals(keys, r.workloads().get(0).keys());
    for (LevelResult l : r.workloads().get(0).levels()) {
      assertTrue(l.counts().succeeded() > 0, l.toString());
      assertEquals(0, l.counts().failed(), l.errors().toString());
    }
    assertFalse(said.contains(PIN), "the PIN never reaches output");
    assertFalse(RunResultJson.toJson(r).contains(PIN), "the PIN never reaches the result");
  }

  @Test
  void open_wrongPin_saysLoginFailedThroughTheServer() throws Exception {
    Path wrongPin = Files.writeString(tmp.resolve("wrong-pin"), "wrong-P1N\n");
    String said =
        childMain(
            SignThroughToken.class,
            List.of(config.toString(), wrongPin.toString(), tmp.toString()),
            Map.of(P11KitAddress.ENV, "unix:path=" + socket),
            3);
    assertTrue(
        said.contains(
            "--keys pkcs11:"
                + config
                + ": login failed through the p11-kit server at unix:path="
                + socket
                + " (CKR_PIN_INCORRECT); check the PIN"),
        said);
    assertFalse(said.contains("wrong-P1N"), "the PIN never reaches output");
  }

  /**
   * A server killed outright leaves its socket file behind, and p11-kit-client.so then answers "no
   * slots"; one that is gone with its socket leaves nothing to connect to: both are named.
   */
  @Test
  void open_serverGone_saysSoNamingTheSocket() throws Exception {
    Path gone = tmp.resolve("gone.sock");
    Process server = startServer(gone);
    server.descendants().forEach(ProcessHandle::destroyForcibly);
    server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    assertTrue(Files.exists(gone), "SIGKILL leaves the socket file");
    String said =
        childMain(
            SignThroughToken.class,
            List.of(config.toString(), pinFile.toString(), tmp.toString()),
            Map.of(P11KitAddress.ENV, "unix:path=" + gone),
            3);
    assertTrue(
        said.contains(
            "--keys pkcs11:"
                + config
                + ": p11-kit-client.so reached no token through the p11-kit server at unix:path="
                + gone
                + ": the server is gone or serves no token"),
        said);

    Files.delete(gone);
    said =
        childMain(
            SignThroughToken.class,
            List.of(config.toString(), pinFile.toString(), tmp.toString()),
            Map.of(P11KitAddress.ENV, "unix:path=" + gone),
            3);
    assertTrue(
        said.contains(
            "--keys pkcs11:"
                + config
                + ": no p11-kit server at unix:path="
                + gone
                + " (no socket there); start one with 'p11-kit server"),
        said);
    assertFalse(said.contains(PIN), "the PIN never reaches output");
  }

  /**
   * In a JVM whose environment lacks the address (this one), {@code remote=} is refused saying why,
   * before the module loads; {@code remote=} takes a Unix socket only; the item continues its
   * {@code pkcs11:} spec in a {@code --keys} list.
   */
  @Test
  void keysSpec_remoteItem_parsedCheckedAndRefusedWithoutTheAddressInTheEnvironment() {
    String keys = "pkcs11:" + config + ",remote=unix:path=" + socket;
    assertEquals(List.of("software:jdk", keys), KeySources.split("software:jdk," + keys));
    assertEquals(
        List.of(new P11KitAddress(socket)), KeySources.p11KitServers("software:jdk," + keys));
    assertEquals(null, KeySources.problem(keys));
    String tcp = KeySources.problem("pkcs11:" + config + ",remote=tcp:127.0.0.1:9");
    assertNotEquals(null, tcp);
    assertTrue(tcp.contains("give unix:path=/absolute/socket"), tcp);
    String other = KeySources.problem("pkcs11:" + config + ",slot=1");
    assertTrue(other.contains("'slot=1' is not an item of pkcs11:"), other);

    var e =
        assertThrows(
            GeneralSecurityException.class,
            () ->
                KeySources.open(
                    keys, () -> pki, pinFile, Map.of(), InstantSource.system(), line -> {}));
    assertTrue(
        e.getMessage()
            .contains(
                "p11-kit-client.so reads its server's address from P11_KIT_SERVER_ADDRESS when the"
                    + " JVM loads it, and this JVM was started with none"),
        e.getMessage());
  }

  /** Without the address or XDG_RUNTIME_DIR, a p11-kit client config is refused before it loads. */
  @Test
  void open_clientConfigWithNoAddressAnywhere_saysWhereToGiveIt() {
    var e =
        assertThrows(
            GeneralSecurityException.class,
            () -> new Pkcs11KeySource(config, Secret.of(PIN.toCharArray()), Map.of()));
    assertTrue(
        e.getMessage()
            .contains(
                "its library is p11-kit-client.so, and neither P11_KIT_SERVER_ADDRESS nor"
                    + " XDG_RUNTIME_DIR says where its p11-kit server is"),
        e.getMessage());
    assertTrue(e.getMessage().contains(",remote=unix:path=SOCKET"), e.getMessage());
  }
}
