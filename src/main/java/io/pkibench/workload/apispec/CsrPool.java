package io.pkibench.workload.apispec;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * {@code ${csr}}'s keys, made before the run (key generation is not what a CA API is sized by):
 * each operation draws one in turn and signs a PKCS#10 request with it, under a subject of its own.
 */
final class CsrPool {
  static final List<String> ALGORITHMS = List.of("ec-p256", "rsa2048", "ed25519");

  /** One operation's request: PEM text, DER, and the DER SubjectPublicKeyInfo it asks for. */
  record Csr(byte[] pem, byte[] der, byte[] publicKey) {}

  private final List<KeyPair> keys;
  private final String signatureAlgorithm;

  private CsrPool(List<KeyPair> keys, String signatureAlgorithm) {
    this.keys = List.copyOf(keys);
    this.signatureAlgorithm = signatureAlgorithm;
  }

  static CsrPool make(String algorithm, int size) throws GeneralSecurityException {
    KeyPairGenerator generator;
    String signature;
    switch (algorithm) {
      case "rsa2048" -> {
        generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        signature = "SHA256withRSA";
      }
      case "ed25519" -> {
        generator = KeyPairGenerator.getInstance("Ed25519");
        signature = "Ed25519";
      }
      default -> {
        generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        signature = "SHA256withECDSA";
      }
    }
    List<KeyPair> keys = new ArrayList<>();
    for (int i = 0; i < size; i++) keys.add(generator.generateKeyPair());
    return new CsrPool(keys, signature);
  }

  /** A request for {@code CN=pkibench-WORKER-SEQ} over the pool's key for that turn. */
  Csr next(int worker, long seq) throws IOException {
    KeyPair key = keys.get((int) Math.floorMod(worker * 7919L + seq, keys.size()));
    try {
      PKCS10CertificationRequest request =
          new JcaPKCS10CertificationRequestBuilder(
                  new X500Name("CN=pkibench-" + worker + "-" + seq), key.getPublic())
              .build(new JcaContentSignerBuilder(signatureAlgorithm).build(key.getPrivate()));
      StringWriter pem = new StringWriter();
      try (JcaPEMWriter writer = new JcaPEMWriter(pem)) {
        writer.writeObject(request);
      }
      return new Csr(
          pem.toString().getBytes(StandardCharsets.US_ASCII),
          request.getEncoded(),
          key.getPublic().getEncoded());
    } catch (OperatorCreationException e) {
      throw new IOException("cannot sign a CSR with " + signatureAlgorithm, e);
    }
  }
}
