package io.pkibench.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Openssl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test PKI as openssl sees it: chains verify, CRLs are honoured, PKCS#12 files open. */
class TestPkiTest {
  @TempDir static Path tmp;
  static TestPki pki;

  @BeforeAll
  static void create() {
    pki =
        TestPki.init(
            tmp.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
  }

  @Test
  void everyLeaf_verifiesWithOpensslAgainstRootAndIntermediates() throws Exception {
    Path d = pki.dir();
    Files.writeString(
        d.resolve("untrusted.pem"),
        Files.readString(d.resolve("intermediate-a.pem"))
            + Files.readString(d.resolve("intermediate-b.pem")));
    for (Entity e : pki.entities()) {
      // OpenSSL before 3.5 cannot decode an ML-DSA or SLH-DSA public key ("X509_PUBKEY_get0:decode
      // error"): those below
      if (e.isCa() || e.keyAlgorithm().isPostQuantum()) continue;
      String r =
          Openssl.run(
              d,
              "verify",
              "-CAfile",
              "root-ca.pem",
              "-untrusted",
              "untrusted.pem",
              e.alias() + ".pem");
      assertTrue(r.startsWith("0:") && r.contains(": OK"), e.alias() + " -> " + r);
    }
  }

  @Test
  void crls_revokedSignerFailsAndOthersPass() throws Exception {
    Path d = pki.dir();
    String[] crls = {
      "-CRLfile",
      "crl/root-ca.crl.pem",
      "-CRLfile",
      "crl/intermediate-a.crl.pem",
      "-CRLfile",
      "crl/intermediate-b.crl.pem"
    };
    List<String> base =
        List.of("verify", "-crl_check_all", "-CAfile", "root-ca.pem", "-untrusted", "ca-chain.pem");
    List<String> good = new ArrayList<>(base);
    good.addAll(List.of(crls));
    good.add("signer-rsa2048-2.pem");
    String ok = Openssl.run(d, good.toArray(String[]::new));
    assertTrue(ok.startsWith("0:"), ok);
    List<String> bad = new ArrayList<>(base);
    bad.addAll(List.of(crls));
    bad.add("signer-rsa2048-revoked.pem");
    String revoked = Openssl.run(d, bad.toArray(String[]::new));
    assertTrue(!revoked.startsWith("0:") && revoked.contains("revoked"), revoked);
  }

  @Test
  void signers_comeFromBothIntermediatesWithDistinctCrlUrls() {
    var a = pki.certificate("signer-rsa2048-1");
    var b = pki.certificate("signer-rsa2048-2");
    assertNotEquals(a.getIssuerX500Principal(), b.getIssuerX500Principal());
    String crlA =
        new String(a.getExtensionValue("2.5.29.31"), java.nio.charset.StandardCharsets.ISO_8859_1);
    String crlB =
        new String(b.getExtensionValue("2.5.29.31"), java.nio.charset.StandardCharsets.ISO_8859_1);
    assertTrue(crlA.contains("intermediate-a.crl") && crlB.contains("intermediate-b.crl"));
  }

  @Test
  void pkcs12_opensWithOpensslUsingThePasswordFile() throws Exception {
    String r =
        Openssl.run(
            pki.dir(),
            "pkcs12",
            "-in",
            "tsa.p12",
            "-passin",
            "file:keystore.pass",
            "-nokeys",
            "-clcerts");
    assertTrue(r.startsWith("0:"), r);
    assertTrue(r.contains("CN=pkibench tsa") || r.contains("CN = pkibench tsa"), r);
  }

  @Test
  void tsaCertificate_hasCriticalTimeStampingEku() throws Exception {
    var tsa = pki.certificate("tsa");
    assertTrue(tsa.getCriticalExtensionOIDs().contains("2.5.29.37"));
    assertEquals(List.of("1.3.6.1.5.5.7.3.8"), tsa.getExtendedKeyUsage());
  }

  @Test
  void mlDsaChain_validatesWithTheJdkAndBouncyCastle_rsaChainCertifiesPostQuantumLeaves()
      throws Exception {
    var factory = java.security.cert.CertificateFactory.getInstance("X.509");
    var root = pki.certificate(Entity.PQ_ROOT);
    var leaf = pki.certificate("signer-ml-dsa-65-2");
    var path = factory.generateCertPath(List.of(leaf, pki.certificate(Entity.PQ_INTERMEDIATE)));
    var params =
        new java.security.cert.PKIXParameters(
            java.util.Set.of(new java.security.cert.TrustAnchor(root, null)));
    params.setRevocationEnabled(false);
    java.security.cert.CertPathValidator.getInstance("PKIX")
        .validate(path, params); // throws when a signature or link is wrong
    assertEquals("ML-DSA-65", leaf.getSigAlgName());
    assertEquals("2.16.840.1.101.3.4.3.18", leaf.getSigAlgOID());
    // RFC 9881: the AlgorithmIdentifier has no parameters, the public key is the raw 1952-byte FIPS
    // 204 key
    var holder = new org.bouncycastle.cert.X509CertificateHolder(leaf.getEncoded());
    assertEquals(null, holder.getSignatureAlgorithm().getParameters());
    assertEquals(1952, holder.getSubjectPublicKeyInfo().getPublicKeyData().getOctets().length);
    assertTrue(
        holder.isSignatureValid(
            new org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder()
                .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider())
                .build(
                    new org.bouncycastle.cert.X509CertificateHolder(
                        pki.certificate(Entity.PQ_INTERMEDIATE).getEncoded()))));
    // the same leaf with one byte of its signature flipped is refused
    byte[] tampered = leaf.getEncoded();
    tampered[tampered.length - 10] ^= 0x01;
    var broken =
        (java.security.cert.X509Certificate)
            factory.generateCertificate(new java.io.ByteArrayInputStream(tampered));
    assertThrows(
        java.security.cert.CertPathValidatorException.class,
        () ->
            java.security.cert.CertPathValidator.getInstance("PKIX")
                .validate(
                    factory.generateCertPath(
                        List.of(broken, pki.certificate(Entity.PQ_INTERMEDIATE))),
                    params));
    // ML-DSA and SLH-DSA leaves under the RSA chain: the RSA signatures that certify them validate
    for (String alias :
        List.of(
            "signer-ml-dsa-44-1",
            "signer-ml-dsa-65-1",
            "signer-ml-dsa-87-1",
            "signer-slh-dsa-sha2-128s-1",
            "signer-slh-dsa-sha2-128f-1")) {
      assertCertifiedByTheRsaChain(pki, alias);
    }
    // OpenSSL 3.0 (Debian 12) parses the encoding and names the OIDs (ML-DSA-65 signature and key);
    // 3.5 and later name them
    String pqText = Openssl.run(pki.dir(), "asn1parse", "-in", "signer-ml-dsa-65-2.pem");
    assertTrue(
        pqText.startsWith("0:") && pqText.split("2.16.840.1.101.3.4.3.18", -1).length - 1 == 3,
        pqText);
  }

  @Test
  void open_pkiOfAnOlderPkibench_issuesTheMissingKeysAndKeepsTheRest() throws Exception {
    Path old = tmp.resolve("old-pki");
    TestPki made =
        TestPki.init(old, InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
    // as an older pkibench left it: no post-quantum entities in the manifest or on disk
    var older = made.entities().stream().filter(e -> !e.keyAlgorithm().isPostQuantum()).toList();
    for (Entity e : made.entities())
      if (e.keyAlgorithm().isPostQuantum()) Files.delete(made.keystore(e.alias()));
    new com.fasterxml.jackson.databind.ObjectMapper()
        .registerModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule())
        .writeValue(
            old.resolve("pki.json").toFile(),
            new TestPki.Manifest(
                TestPki.SCHEMA, made.manifest().createdAt(), made.manifest().crlBaseUrl(), older));
    byte[] rsaBefore = Files.readAllBytes(made.keystore("signer-rsa2048-1"));
    TestPki reopened = TestPki.open(old);
    assertEquals(
        Entity.standardSet().stream().map(Entity::alias).sorted().toList(),
        reopened.entities().stream().map(Entity::alias).sorted().toList());
    assertTrue(
        Files.exists(reopened.keystore("signer-ml-dsa-65-1"))
            && Files.exists(reopened.keystore("signer-ml-dsa-65-2")));
    assertTrue(
        java.util.Arrays.equals(
            rsaBefore, Files.readAllBytes(reopened.keystore("signer-rsa2048-1"))),
        "an existing key was replaced");
    assertCertifiedByTheRsaChain(
        reopened, "signer-ml-dsa-65-1"); // by the existing RSA intermediate
    assertEquals(
        reopened.manifest(), TestPki.open(old).manifest(), "a second open finds nothing missing");
  }

  private static void assertCertifiedByTheRsaChain(TestPki pki, String alias) throws Exception {
    var factory = java.security.cert.CertificateFactory.getInstance("X.509");
    var params =
        new java.security.cert.PKIXParameters(
            java.util.Set.of(new java.security.cert.TrustAnchor(pki.certificate("root-ca"), null)));
    params.setRevocationEnabled(false);
    java.security.cert.CertPathValidator.getInstance("PKIX")
        .validate(
            factory.generateCertPath(
                List.of(pki.certificate(alias), pki.certificate("intermediate-a"))),
            params);
  }

  @Test
  void init_again_changesNothing() throws Exception {
    byte[] before = Files.readAllBytes(pki.keystore("signer-rsa2048-1"));
    List<String> log = new ArrayList<>();
    TestPki again =
        TestPki.init(pki.dir(), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, log::add);
    assertEquals(pki.manifest(), again.manifest());
    assertTrue(
        java.util.Arrays.equals(before, Files.readAllBytes(pki.keystore("signer-rsa2048-1"))));
    assertTrue(log.get(0).contains("nothing changed"), log.toString());
  }

  @Test
  void init_intoForeignNonEmptyDirectory_refuses() throws Exception {
    Path foreign = Files.createDirectories(tmp.resolve("foreign"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    var e =
        assertThrows(
            java.io.UncheckedIOException.class,
            () ->
                TestPki.init(
                    foreign, InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {}));
    assertTrue(e.getMessage().contains("not empty"), e.getMessage());
  }

  @Test
  void passwordFile_isPrivate() throws Exception {
    assertEquals(
        "rw-------",
        java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(pki.dir().resolve("keystore.pass"))));
  }
}
