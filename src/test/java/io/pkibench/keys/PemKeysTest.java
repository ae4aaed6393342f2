package io.pkibench.keys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Openssl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys and certificates made by openssl, as a user would hand them to pkibench. */
class PemKeysTest {
  @TempDir Path dir;

  private void openssl(String... args) throws Exception {
    String result = Openssl.run(dir, args);
    assertTrue(Openssl.succeeded(result), result);
  }

  private X509Certificate selfSigned(String key, String cert) throws Exception {
    openssl(
        "req", "-x509", "-new", "-key", key, "-subj", "/CN=pemkeys", "-days", "2", "-out", cert);
    return PemKeys.certificate(Files.readAllBytes(dir.resolve(cert)));
  }

  @Test
  void rsaKeyOf_pkcs8AndPkcs1_signWhatTheCertificateVerifies() throws Exception {
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "k8.pem");
    openssl("rsa", "-in", "k8.pem", "-traditional", "-out", "k1.pem");
    X509Certificate cert = selfSigned("k8.pem", "c.pem");
    openssl("x509", "-in", "c.pem", "-outform", "DER", "-out", "c.der");
    assertEquals(
        cert,
        PemKeys.certificate(Files.readAllBytes(dir.resolve("c.der"))),
        "DER reads as the same certificate as PEM");
    for (String file : new String[] {"k8.pem", "k1.pem"}) {
      SigningKey key =
          PemKeys.rsaKeyOf(file, PemKeys.privateKey(Files.readAllBytes(dir.resolve(file))), cert);
      Signature signer = Signature.getInstance("SHA256withRSA", key.provider());
      signer.initSign(key.privateKey());
      signer.update(new byte[] {1, 2, 3});
      Signature verifier = Signature.getInstance("SHA256withRSA");
      verifier.initVerify(cert);
      verifier.update(new byte[] {1, 2, 3});
      assertTrue(verifier.verify(signer.sign()), file);
      assertArrayEquals(cert.getEncoded(), key.certificate().getEncoded());
    }
  }

  @Test
  void rsaKeyOf_anotherKeysCertificate_refusedSayingTheModuliDiffer() throws Exception {
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "a.pem");
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "b.pem");
    X509Certificate ofB = selfSigned("b.pem", "b-cert.pem");
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PemKeys.rsaKeyOf(
                    "a", PemKeys.privateKey(Files.readAllBytes(dir.resolve("a.pem"))), ofB));
    assertEquals(
        "this key does not belong to the certificate (the RSA moduli differ)", e.getMessage());
  }

  @Test
  void privateKey_encryptedOrNotAKey_refusedSayingWhatItIs() throws Exception {
    openssl(
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-aes-128-cbc",
        "-pass",
        "pass:secret",
        "-out",
        "enc.pem");
    var encrypted =
        assertThrows(
            IllegalArgumentException.class,
            () -> PemKeys.privateKey(Files.readAllBytes(dir.resolve("enc.pem"))));
    assertTrue(
        encrypted.getMessage().startsWith("not an unencrypted PEM private key")
            && encrypted.getMessage().contains("openssl pkey"),
        encrypted.getMessage());
    var empty = assertThrows(IllegalArgumentException.class, () -> PemKeys.privateKey(new byte[0]));
    assertTrue(
        empty.getMessage().startsWith("not an unencrypted PEM private key"), empty.getMessage());
    var garbage =
        assertThrows(
            IllegalArgumentException.class,
            () -> PemKeys.certificate("-----BEGIN CERTIFICATE-----\nAAAA\n".getBytes()));
    assertEquals("not an X.509 certificate (PEM or DER)", garbage.getMessage());
  }
}
