package io.pkibench.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import io.pkibench.testing.Openssl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test PKI as openssl sees it: chains verify, CRLs are honoured, PKCS#12 files open. */
class TestPkiTest {
  @TempDir static Path tmp;
  static TestPki pki;

  @BeforeAll
  static void create() {
    pki = TestPki.init(tmp.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
  }

  @Test
  void everyLeaf_verifiesWithOpensslAgainstRootAndIntermediates() throws Exception {
    Path d = pki.dir();
    Files.writeString(d.resolve("untrusted.pem"), Files.readString(d.resolve("intermediate-a.pem")) + Files.readString(d.resolve("intermediate-b.pem")));
    for (Entity e : pki.entities()) {
      if (e.isCa()) continue;
      String r = Openssl.run(d, "verify", "-CAfile", "root-ca.pem", "-untrusted", "untrusted.pem", e.alias() + ".pem");
      assertTrue(r.startsWith("0:") && r.contains(": OK"), e.alias() + " -> " + r);
    }
  }

  @Test
  void crls_revokedSignerFailsAndOthersPass() throws Exception {
    Path d = pki.dir();
    String[] crls = {"-CRLfile", "crl/root-ca.crl.pem", "-CRLfile", "crl/intermediate-a.crl.pem", "-CRLfile", "crl/intermediate-b.crl.pem"};
    List<String> base = List.of("verify", "-crl_check_all", "-CAfile", "root-ca.pem", "-untrusted", "ca-chain.pem");
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
    String crlA = new String(a.getExtensionValue("2.5.29.31"), java.nio.charset.StandardCharsets.ISO_8859_1);
    String crlB = new String(b.getExtensionValue("2.5.29.31"), java.nio.charset.StandardCharsets.ISO_8859_1);
    assertTrue(crlA.contains("intermediate-a.crl") && crlB.contains("intermediate-b.crl"));
  }

  @Test
  void pkcs12_opensWithOpensslUsingThePasswordFile() throws Exception {
    String r = Openssl.run(pki.dir(), "pkcs12", "-in", "tsa.p12", "-passin", "file:keystore.pass", "-nokeys", "-clcerts");
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
  void init_again_changesNothing() throws Exception {
    byte[] before = Files.readAllBytes(pki.keystore("signer-rsa2048-1"));
    List<String> log = new ArrayList<>();
    TestPki again = TestPki.init(pki.dir(), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, log::add);
    assertEquals(pki.manifest(), again.manifest());
    assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(pki.keystore("signer-rsa2048-1"))));
    assertTrue(log.get(0).contains("nothing changed"), log.toString());
  }

  @Test
  void init_intoForeignNonEmptyDirectory_refuses() throws Exception {
    Path foreign = Files.createDirectories(tmp.resolve("foreign"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    var e = assertThrows(java.io.UncheckedIOException.class,
        () -> TestPki.init(foreign, InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {}));
    assertTrue(e.getMessage().contains("not empty"), e.getMessage());
  }

  @Test
  void passwordFile_isPrivate() throws Exception {
    assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(pki.dir().resolve("keystore.pass"))));
  }
}
