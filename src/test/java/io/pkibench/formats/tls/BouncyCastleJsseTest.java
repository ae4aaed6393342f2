package io.pkibench.formats.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.Commands;
import io.pkibench.testing.TestKeys;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.jsse.provider.BouncyCastleJsseProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ML-DSA certificates in TLS 1.3, mutual (issue 29): of the TLS stacks here only BouncyCastle's
 * JSSE (bctls 1.84, draft-ietf-tls-mldsa's mldsa44/65/87 schemes) signs a handshake with ML-DSA;
 * the JDK 25's JSSE, the BoringSSL of netty-tcnative 2.0.84, Go 1.26's crypto/tls and OpenSSL 3.0
 * have no ML-DSA signature scheme. So both ends are BouncyCastle's (no second implementation to
 * hold it to), over real sockets on loopback, with the test PKI's ML-DSA-65 chain: the server's
 * certificate issued by its intermediate-ml-dsa-65 for this test (the PKI has no ML-DSA TLS
 * server), the client's the PKI's signer-ml-dsa-65-2 (TLS client authentication).
 *
 * <p>Also the hybrid group SecP256r1MLKEM768, which the BoringSSL of netty-tcnative 2.0.84 lacks:
 * BouncyCastle's JSSE serves it and Go 1.26's crypto/tls, the independent client, says what was
 * negotiated.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BouncyCastleJsseTest {
  private static final BouncyCastleProvider BC = new BouncyCastleProvider();
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  /**
   * A test PKI key as BouncyCastle's own key object (its TLS signer takes no other provider's
   * ML-DSA key).
   */
  static PrivateKey bcKey(SigningKey key) throws Exception {
    return KeyFactory.getInstance("ML-DSA", BC)
        .generatePrivate(new PKCS8EncodedKeySpec(key.privateKey().getEncoded()));
  }

  /**
   * As BouncyCastle's certificate object, whose public key its ML-DSA verifier takes (not the
   * JDK's).
   */
  static X509Certificate bc(X509Certificate certificate) throws Exception {
    return (X509Certificate)
        java.security.cert.CertificateFactory.getInstance("X.509", BC)
            .generateCertificate(new java.io.ByteArrayInputStream(certificate.getEncoded()));
  }

  static List<X509Certificate> bc(List<X509Certificate> chain) throws Exception {
    List<X509Certificate> out = new java.util.ArrayList<>();
    for (X509Certificate c : chain) out.add(bc(c));
    return out;
  }

  /**
   * An ML-DSA-65 TLS server certificate for 127.0.0.1, issued by the test PKI's
   * intermediate-ml-dsa-65.
   */
  static Identity server(SoftwareKeySource keys) throws Exception {
    SigningKey ca = keys.key("intermediate-ml-dsa-65");
    KeyPair pair = KeyPairGenerator.getInstance("ML-DSA-65", BC).generateKeyPair();
    Instant now = Instant.now();
    var builder =
        new JcaX509v3CertificateBuilder(
            ca.certificate(),
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(1))),
            new javax.security.auth.x500.X500Principal(
                "CN=pkibench ml-dsa tls-server, O=pkibench test PKI, C=BR"),
            pair.getPublic());
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    builder.addExtension(
        Extension.keyUsage,
        true,
        new org.bouncycastle.asn1.x509.KeyUsage(
            org.bouncycastle.asn1.x509.KeyUsage.digitalSignature));
    builder.addExtension(
        Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    builder.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
    X509Certificate leaf =
        new JcaX509CertificateConverter()
            .setProvider(BC)
            .getCertificate(
                builder.build(
                    new JcaContentSignerBuilder("ML-DSA-65").setProvider(BC).build(bcKey(ca))));
    List<X509Certificate> chain = new java.util.ArrayList<>(List.of(leaf));
    chain.addAll(
        bc(
            ca.chain()
                .subList(
                    0, ca.chain().size() - 1))); // the intermediate; the root stays with the client
    return new Identity(pair.getPrivate(), chain);
  }

  record Identity(PrivateKey key, List<X509Certificate> chain) {}

  /**
   * BouncyCastle's JSSE, TLS 1.3 only, presenting {@code identity} and trusting {@code root} alone.
   */
  static SSLContext context(Identity identity, X509Certificate root) throws Exception {
    // bctls offers ML-DSA only when named in the standard properties; they are read as a context is
    // made. The JDK's
    // JSSE reads the same names once per JVM: it is made to read them first, so the other tests'
    // TLS is untouched.
    SSLContext.getDefault().createSSLEngine();
    String schemes = "mldsa65,mldsa44,mldsa87";
    String client = System.setProperty("jdk.tls.client.SignatureSchemes", schemes);
    String server = System.setProperty("jdk.tls.server.SignatureSchemes", schemes);
    try {
      return bcContext(identity, root);
    } finally {
      restore("jdk.tls.client.SignatureSchemes", client);
      restore("jdk.tls.server.SignatureSchemes", server);
    }
  }

  private static void restore(String property, String value) {
    if (value == null) System.clearProperty(property);
    else System.setProperty(property, value);
  }

  private static SSLContext bcContext(Identity identity, X509Certificate root) throws Exception {
    var jsse = new BouncyCastleJsseProvider(BC);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("root", bc(root));
    TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX", jsse);
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLSv1.3", jsse);
    context.init(
        new javax.net.ssl.KeyManager[] {new OneKey(identity)},
        tmf.getTrustManagers(),
        new SecureRandom());
    return context;
  }

  @Test
  void mutualHandshake_mlDsa65ServerAndClientCertificates_tls13AndEachSideSeesTheOthersMlDsaKey()
      throws Exception {
    var keys = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK);
    X509Certificate root = fixture.pki.certificate("root-ca-ml-dsa-65");
    Identity server = server(keys);
    SigningKey signer = keys.key("signer-ml-dsa-65-2");
    Identity client =
        new Identity(bcKey(signer), bc(signer.chain().subList(0, signer.chain().size() - 1)));
    try (SSLServerSocket listening =
        (SSLServerSocket)
            context(server, root)
                .getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      listening.setNeedClientAuth(true);
      CompletableFuture<ExtendedSSLSession> accepted =
          CompletableFuture.supplyAsync(
              () -> {
                try (SSLSocket s = (SSLSocket) listening.accept()) {
                  int b = s.getInputStream().read();
                  s.getOutputStream().write(b);
                  s.getOutputStream().flush();
                  return (ExtendedSSLSession) s.getSession();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      try (SSLSocket s =
          (SSLSocket)
              context(client, root)
                  .getSocketFactory()
                  .createSocket(InetAddress.getLoopbackAddress(), listening.getLocalPort())) {
        s.getOutputStream().write(42);
        s.getOutputStream().flush();
        assertEquals(
            42, s.getInputStream().read(), "echoed over the ML-DSA-authenticated connection");
        ExtendedSSLSession session = (ExtendedSSLSession) s.getSession();
        assertEquals("TLSv1.3", session.getProtocol());
        X509Certificate serverLeaf = (X509Certificate) session.getPeerCertificates()[0];
        assertEquals(server.chain().get(0), serverLeaf);
        assertTrue(
            serverLeaf.getPublicKey().getAlgorithm().startsWith("ML-DSA"),
            serverLeaf.getPublicKey().getAlgorithm());
        // the server holds an ML-DSA key alone, so its CertificateVerify, which the client checked,
        // was ML-DSA
      }
      ExtendedSSLSession serverSide = accepted.get(30, TimeUnit.SECONDS);
      X509Certificate clientLeaf = (X509Certificate) serverSide.getPeerCertificates()[0];
      assertArrayEquals(
          signer.certificate().getEncoded(),
          clientLeaf.getEncoded(),
          "the client's certificate: the test PKI's signer-ml-dsa-65-2");
      // and the client's CertificateVerify, which the server checked, was made with that
      // certificate's ML-DSA key
      assertTrue(
          clientLeaf.getPublicKey().getAlgorithm().startsWith("ML-DSA"),
          clientLeaf.getPublicKey().getAlgorithm());
    }
  }

  @Test
  void clientTrustingAnotherRoot_refusesTheMlDsaServer() throws Exception {
    var keys = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK);
    Identity server = server(keys);
    SigningKey signer = keys.key("signer-ml-dsa-65-2");
    Identity client =
        new Identity(bcKey(signer), bc(signer.chain().subList(0, signer.chain().size() - 1)));
    try (SSLServerSocket listening =
        (SSLServerSocket)
            context(server, fixture.pki.certificate("root-ca-ml-dsa-65"))
                .getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture.runAsync(
          () -> {
            try (Socket s = listening.accept()) {
              s.getInputStream().read();
            } catch (Exception ignored) {
              // the client refuses: this side sees the alert
            }
          });
      // the RSA root: the ML-DSA chain does not lead to it
      try (SSLSocket s =
          (SSLSocket)
              context(client, fixture.pki.certificate("root-ca"))
                  .getSocketFactory()
                  .createSocket(InetAddress.getLoopbackAddress(), listening.getLocalPort())) {
        var refused = assertThrows(java.io.IOException.class, s::startHandshake);
        assertTrue(
            String.valueOf(refused.getMessage()).contains("certificate_unknown"),
            refused.toString());
      }
    }
  }

  @Test
  void secP256r1MlKem768_bouncyCastleServerGoClient_negotiatedAsGoSays() throws Exception {
    assertTrue(
        java.nio.file.Files.isExecutable(HybridKeyExchangeTest.GO),
        HybridKeyExchangeTest.GO + " is missing: this test needs Go 1.26 there");
    Path source = dir.resolve("tlsgroup.go");
    try (var in = getClass().getResourceAsStream("/go/tlsgroup.go")) {
      java.nio.file.Files.copy(in, source, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    Path binary = dir.resolve("tlsgroup");
    run(
        List.of(
            HybridKeyExchangeTest.GO.toString(),
            "build",
            "-o",
            binary.toString(),
            source.toString()),
        0);
    Path rootPem =
        java.nio.file.Files.writeString(
            dir.resolve("root.pem"), TestPki.pem(List.of(fixture.pki.certificate("root-ca"))));
    // the test PKI's RSA TLS server, which Go can verify (it has no ML-DSA certificates)
    SigningKey tls = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("tls-server");
    Identity server =
        new Identity(tls.privateKey(), bc(tls.chain().subList(0, tls.chain().size() - 1)));
    // BouncyCastle's own signature schemes here (the ML-DSA ones are for ML-DSA keys)
    try (SSLServerSocket listening =
        (SSLServerSocket)
            bcContext(server, fixture.pki.certificate("root-ca"))
                .getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Void> served =
          CompletableFuture.runAsync(
              () -> {
                try (SSLSocket s = (SSLSocket) listening.accept()) {
                  var bcSocket = (org.bouncycastle.jsse.BCSSLSocket) s;
                  var parameters = bcSocket.getParameters();
                  parameters.setNamedGroups(new String[] {"SecP256r1MLKEM768"});
                  bcSocket.setParameters(parameters);
                  s.startHandshake();
                  s.getInputStream().read(); // until Go closes
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      String address = "127.0.0.1:" + listening.getLocalPort();
      List<String> go =
          run(List.of(binary.toString(), address, rootPem.toString(), "SecP256r1MLKEM768"), 0)
              .strip()
              .lines()
              .toList();
      assertEquals("SecP256r1MLKEM768", go.get(0), go.toString());
      assertTrue(go.get(1).contains("version=TLS 1.3 hrr=false resumed=false"), go.toString());
      served.get(30, TimeUnit.SECONDS);
    }
  }

  /** Runs {@code command} in the test's directory: {@link Commands#run}. */
  static String run(List<String> command, int expectedExit) throws Exception {
    return Commands.run(dir, command, expectedExit);
  }

  /** One key and chain, whatever the engine asks for: both ends have exactly one identity. */
  static final class OneKey extends X509ExtendedKeyManager {
    private final Identity identity;

    OneKey(Identity identity) {
      this.identity = identity;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return new String[] {"me"};
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return "me";
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      return "me";
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return new String[] {"me"};
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return "me";
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      return "me";
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return identity.chain().toArray(new X509Certificate[0]);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return identity.key();
    }
  }
}
