package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestCertificates;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Date;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.cert.ocsp.BasicOCSPRespBuilder;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.CertificateStatus;
import org.bouncycastle.cert.ocsp.OCSPRespBuilder;
import org.bouncycastle.cert.ocsp.RespID;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every refusal of {@link OcspCheck} is seen on an answer that has exactly that one fault, beside
 * the same answer without it accepted; an answer OpenSSL's own responder made is accepted too.
 */
class OcspCheckTest {
  private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
  private static final byte[] NONCE = "sixteen byte nce".getBytes();

  private static KeyPair caKeys;
  private static X509Certificate ca;
  private static X509Certificate leaf;

  @BeforeAll
  static void pki() throws Exception {
    caKeys = p256();
    ca =
        certificate(
            "CN=Test OCSP CA", caKeys.getPublic(), "CN=Test OCSP CA", caKeys.getPrivate(), 1, true);
    leaf =
        certificate(
            "CN=leaf", p256().getPublic(), "CN=Test OCSP CA", caKeys.getPrivate(), 2, false);
  }

  /** One answer about {@code leaf}, signed by the CA, with each field settable to plant a fault. */
  private record Answer(
      Instant thisUpdate, Instant nextUpdate, byte[] nonce, BigInteger serial, PrivateKey signer) {
    static Answer good() {
      return new Answer(
          NOW.minus(Duration.ofMinutes(1)),
          NOW.plus(Duration.ofHours(1)),
          NONCE,
          leaf.getSerialNumber(),
          caKeys.getPrivate());
    }

    byte[] der() throws Exception {
      var digests = new JcaDigestCalculatorProviderBuilder().build();
      CertificateID id =
          new CertificateID(
              digests.get(CertificateID.HASH_SHA1), new JcaX509CertificateHolder(ca), serial);
      var builder =
          new BasicOCSPRespBuilder(
              new RespID(X500Name.getInstance(ca.getSubjectX500Principal().getEncoded())));
      builder.addResponse(
          id,
          CertificateStatus.GOOD,
          Date.from(thisUpdate),
          nextUpdate == null ? null : Date.from(nextUpdate));
      if (nonce != null) {
        builder.setResponseExtensions(
            new Extensions(
                new Extension(
                    OCSPObjectIdentifiers.id_pkix_ocsp_nonce,
                    false,
                    new DEROctetString(new DEROctetString(nonce).getEncoded()))));
      }
      var basic =
          builder.build(
              new JcaContentSignerBuilder("SHA256withECDSA").build(signer),
              new X509CertificateHolder[0],
              Date.from(NOW));
      return new OCSPRespBuilder().build(OCSPRespBuilder.SUCCESSFUL, basic).getEncoded();
    }
  }

  private static OcspCheck check() throws Exception {
    return new OcspCheck(ca, List.of(), InstantSource.fixed(NOW));
  }

  @Test
  void goodAnswer_acceptedAsGood() throws Exception {
    OcspCheck check = check();
    assertEquals(OcspCheck.Status.GOOD, check.check(check.query(leaf, NONCE), Answer.good().der()));
  }

  @Test
  void staleAnswer_refused_namingItsNextUpdate() throws Exception {
    Answer good = Answer.good();
    Answer stale =
        new Answer(
            NOW.minus(Duration.ofHours(2)),
            NOW.minus(Duration.ofMinutes(6)),
            good.nonce(),
            good.serial(),
            good.signer());
    OcspCheck check = check();
    var e = assertThrows(Exception.class, () -> check.check(check.query(leaf, NONCE), stale.der()));
    assertTrue(
        e.getMessage().contains("stale") && e.getMessage().contains("nextUpdate"), e.getMessage());
  }

  @Test
  void nextUpdateWithinTheClockSkew_accepted() throws Exception {
    Answer good = Answer.good();
    Answer justPast =
        new Answer(
            NOW.minus(Duration.ofHours(2)),
            NOW.minus(Duration.ofMinutes(4)),
            good.nonce(),
            good.serial(),
            good.signer());
    OcspCheck check = check();
    assertEquals(OcspCheck.Status.GOOD, check.check(check.query(leaf, NONCE), justPast.der()));
  }

  @Test
  void answerFromTheFuture_refused() throws Exception {
    Answer good = Answer.good();
    Answer future =
        new Answer(
            NOW.plus(Duration.ofMinutes(6)),
            NOW.plus(Duration.ofHours(2)),
            good.nonce(),
            good.serial(),
            good.signer());
    OcspCheck check = check();
    var e =
        assertThrows(Exception.class, () -> check.check(check.query(leaf, NONCE), future.der()));
    assertTrue(
        e.getMessage().contains("thisUpdate") && e.getMessage().contains("future"), e.getMessage());
  }

  @Test
  void nonceSentButNotEchoed_refused() throws Exception {
    Answer good = Answer.good();
    Answer noNonce =
        new Answer(good.thisUpdate(), good.nextUpdate(), null, good.serial(), good.signer());
    OcspCheck check = check();
    var e =
        assertThrows(Exception.class, () -> check.check(check.query(leaf, NONCE), noNonce.der()));
    assertTrue(e.getMessage().contains("does not echo the request's nonce"), e.getMessage());
    // no nonce asked for: none needed
    assertEquals(OcspCheck.Status.GOOD, check.check(check.query(leaf, null), noNonce.der()));
  }

  @Test
  void anotherRequestsNonce_refused() throws Exception {
    Answer good = Answer.good();
    Answer replayed =
        new Answer(
            good.thisUpdate(),
            good.nextUpdate(),
            "another request!".getBytes(),
            good.serial(),
            good.signer());
    OcspCheck check = check();
    var e =
        assertThrows(Exception.class, () -> check.check(check.query(leaf, NONCE), replayed.der()));
    assertTrue(e.getMessage().contains("nonce is not the request's"), e.getMessage());
  }

  @Test
  void answerAboutAnotherCertificate_refused() throws Exception {
    Answer good = Answer.good();
    Answer other =
        new Answer(
            good.thisUpdate(),
            good.nextUpdate(),
            good.nonce(),
            BigInteger.valueOf(99),
            good.signer());
    OcspCheck check = check();
    var e = assertThrows(Exception.class, () -> check.check(check.query(leaf, NONCE), other.der()));
    assertTrue(e.getMessage().contains("does not answer for the certificate"), e.getMessage());
  }

  @Test
  void answerSignedByAnotherKeyInTheCasName_refused() throws Exception {
    Answer good = Answer.good();
    Answer forged =
        new Answer(
            good.thisUpdate(), good.nextUpdate(), good.nonce(), good.serial(), p256().getPrivate());
    OcspCheck check = check();
    var e =
        assertThrows(Exception.class, () -> check.check(check.query(leaf, NONCE), forged.der()));
    assertTrue(e.getMessage().contains("signature does not verify"), e.getMessage());
  }

  /** The independent peer: OpenSSL's responder answers our request, and our check reads "good". */
  @Test
  void opensslResponderAnswer_acceptedWithItsNonce(@TempDir Path dir) throws Exception {
    // openssl ocsp signs with the CA itself here (-rsigner the CA), the simplest RFC 6960 case
    Files.writeString(dir.resolve("ca.pem"), TestCertificates.pem(ca));
    Files.writeString(dir.resolve("ca.key"), TestCertificates.pem(caKeys.getPrivate()));
    String expiry = "301231235959Z";
    Files.writeString(
        dir.resolve("index.txt"),
        "V\t"
            + expiry
            + "\t\t"
            + leaf.getSerialNumber().toString(16).toUpperCase()
            + "\tunknown\tCN=leaf\n");
    OcspCheck check = new OcspCheck(ca, List.of(), InstantSource.system());
    var query = check.query(leaf, NONCE);
    Files.write(dir.resolve("req.der"), query.der());
    String out =
        Openssl.run(
            dir,
            "ocsp",
            "-index",
            "index.txt",
            "-rsigner",
            "ca.pem",
            "-rkey",
            "ca.key",
            "-CA",
            "ca.pem",
            "-reqin",
            "req.der",
            "-respout",
            "resp.der",
            "-ndays",
            "1");
    assertTrue(Openssl.succeeded(out), out);
    assertEquals(
        OcspCheck.Status.GOOD, check.check(query, Files.readAllBytes(dir.resolve("resp.der"))));
    // the same answer for a request with another nonce is a replay
    var other = check.query(leaf, "another request!".getBytes());
    var e =
        assertThrows(
            Exception.class, () -> check.check(other, Files.readAllBytes(dir.resolve("resp.der"))));
    assertTrue(e.getMessage().contains("nonce"), e.getMessage());
  }

  private static KeyPair p256() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509Certificate certificate(
      String subject, PublicKey key, String issuer, PrivateKey issuerKey, long serial, boolean isCa)
      throws Exception {
    var builder =
        new JcaX509v3CertificateBuilder(
            new X500Principal(issuer),
            BigInteger.valueOf(serial),
            Date.from(NOW.minus(Duration.ofDays(30))),
            Date.from(NOW.plus(Duration.ofDays(3650))),
            new X500Principal(subject),
            key);
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
  }
}
