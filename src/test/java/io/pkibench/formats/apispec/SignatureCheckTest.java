package io.pkibench.formats.apispec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.PemKeys;
import io.pkibench.testing.Openssl;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.SignatureException;
import java.util.HashMap;
import java.util.Map;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code signature} check against signatures made by another implementation: openssl for RSA
 * PKCS#1 v1.5 and PSS, ECDSA (DER) and Ed25519; the JDK for ECDSA in P1363 form; BouncyCastle for
 * ML-DSA-65 (openssl 3.0 has none). Each passes over the bytes signed and fails over a one-byte
 * change.
 */
class SignatureCheckTest {
  @TempDir static Path dir;
  static final Map<String, byte[]> values = new HashMap<>();

  static void openssl(String... args) throws Exception {
    String result = Openssl.run(dir, args);
    assertTrue(Openssl.succeeded(result), "openssl " + String.join(" ", args) + " -> " + result);
  }

  @BeforeAll
  static void sign() throws Exception {
    Files.writeString(dir.resolve("doc.bin"), "the bytes every signature is over");
    values.put("document", Files.readAllBytes(dir.resolve("doc.bin")));
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.key");
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.key");
    openssl("genpkey", "-algorithm", "ED25519", "-out", "ed.key");
    for (String k : new String[] {"rsa", "ec", "ed"})
      openssl("pkey", "-in", k + ".key", "-pubout", "-out", k + ".pub");
    openssl("dgst", "-sha256", "-sign", "rsa.key", "-out", "rsa.sig", "doc.bin");
    openssl(
        "dgst",
        "-sha256",
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_pss_saltlen:32",
        "-sign",
        "rsa.key",
        "-out",
        "pss.sig",
        "doc.bin");
    openssl("dgst", "-sha256", "-sign", "ec.key", "-out", "ec.sig", "doc.bin");
    openssl("pkeyutl", "-sign", "-inkey", "ed.key", "-rawin", "-in", "doc.bin", "-out", "ed.sig");
    for (String s : new String[] {"rsa", "pss", "ec", "ed"})
      values.put(s, Files.readAllBytes(dir.resolve(s + ".sig")));
    Signature p1363 = Signature.getInstance("SHA256withECDSAinP1363Format");
    p1363.initSign(PemKeys.privateKey(Files.readAllBytes(dir.resolve("ec.key"))));
    p1363.update(values.get("document"));
    values.put("p1363", p1363.sign());
    KeyPair mlDsa = KeyPairGenerator.getInstance("ML-DSA-65", Check.BC).generateKeyPair();
    Signature ml = Signature.getInstance("ML-DSA-65", Check.BC);
    ml.initSign(mlDsa.getPrivate());
    ml.update(values.get("document"));
    values.put("mldsa", ml.sign());
    StringWriter pem = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(pem)) {
      w.writeObject(mlDsa.getPublic());
    }
    Files.writeString(dir.resolve("mldsa.pub"), pem.toString());
  }

  static final String SPEC =
      """
      steps:
        - request: GET /signatures
          capture: {rsa: body, pss: body, ec: body, ed: body, p1363: body, mldsa: body}
      verify:
        - signature: {value: "${rsa}", over: "${document}", alg: SHA256withRSA, key: rsa.pub}
        - signature: {value: "${pss}", over: "${document}", alg: SHA256withRSA/PSS, key: rsa.pub}
        - signature: {value: "${ec}", over: "${document}", alg: SHA256withECDSA, key: ec.pub}
        - signature: {value: "${ed}", over: "${document}", alg: Ed25519, key: ed.pub}
        - signature: {value: "${p1363}", over: "${document}", alg: SHA256withECDSAinP1363Format, key: ec.pub}
        - signature: {value: "${mldsa}", over: "${document}", alg: ML-DSA-65, key: mldsa.pub}
      """;

  @Test
  void verify_signaturesByOtherImplementations_passOverTheBytesSigned() throws Exception {
    ApiSpec spec = SpecReader.read(SPEC, "sigs.yaml", dir);
    assertEquals(6, spec.checks().size());
    for (Check check : spec.checks()) check.verify(values::get);
  }

  @Test
  void verify_oneByteChangedInTheDocument_everyCheckFailsSayingSo() throws Exception {
    ApiSpec spec = SpecReader.read(SPEC, "sigs.yaml", dir);
    byte[] changed = values.get("document").clone();
    changed[3] ^= 1;
    Map<String, byte[]> tampered = new HashMap<>(values);
    tampered.put("document", changed);
    for (Check check : spec.checks()) {
      SignatureException e =
          assertThrows(SignatureException.class, () -> check.verify(tampered::get), check.name());
      assertTrue(e.getMessage().contains("does not verify over ${document}"), e.getMessage());
    }
  }
}
