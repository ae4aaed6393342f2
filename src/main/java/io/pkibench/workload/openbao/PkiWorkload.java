package io.pkibench.workload.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.keys.PemKeys;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.openbao.OpenBaoWorkloads.Kind;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * pki issue and sign. With --verify each certificate is checked here against the mount's CA,
 * fetched once: its signature, its issuer, its validity now, the name asked for, and that its key
 * is the one sent (sign) or the one returned beside it (issue).
 */
final class PkiWorkload implements Workload {
  private final Kind kind;
  private final OpenBaoClient client;
  private final boolean verify;
  private final String mount;
  private final String role;
  private final X509Certificate ca;
  private final String keyType;
  private final int keyBits;
  private final AtomicLong serial = new AtomicLong();

  PkiWorkload(Kind kind, OpenBaoClient client, boolean verify, Params params) throws Exception {
    this.kind = kind;
    this.client = client;
    this.verify = verify;
    this.mount = params.get("mount");
    this.role = params.get("role");
    JsonNode roleData = client.get(mount + "/roles/" + role).path("data");
    this.keyType = roleData.path("key_type").asText();
    this.keyBits = roleData.path("key_bits").asInt();
    this.ca =
        PemKeys.certificate(
            client
                .get(mount + "/cert/ca")
                .path("data")
                .path("certificate")
                .asText()
                .getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    // checked operations: under --verify each certificate is checked, so a level's verified count
    // is its succeeded count
    if (kind == Kind.PKI_ISSUE) {
      return (CheckedOperation)
          () -> {
            String name = commonName(worker);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("common_name", name);
            body.put("ttl", "10m");
            body.put("private_key_format", "pkcs8");
            JsonNode data = client.post(mount + "/issue/" + role, body).path("data");
            X509Certificate issued = certificate(data);
            if (verify) {
              check(issued, name);
              PrivateKey key =
                  PemKeys.privateKey(
                      data.path("private_key").asText().getBytes(StandardCharsets.US_ASCII));
              checkPair(key, issued.getPublicKey());
            }
            return verify;
          };
    }
    // the role names the certificate after the CSR (use_csr_common_name, OpenBao's default)
    KeyPair pair = keyPair();
    String name = "pkibench-openbao-worker-" + worker + ".pkibench.test";
    String csr = csr(pair, name);
    return (CheckedOperation)
        () -> {
          JsonNode data =
              client.post(mount + "/sign/" + role, Map.of("csr", csr, "ttl", "10m")).path("data");
          X509Certificate issued = certificate(data);
          if (verify) {
            check(issued, name);
            if (!issued.getPublicKey().equals(pair.getPublic()))
              throw new CertificateException("the certificate holds another key than the CSR's");
          }
          return verify;
        };
  }

  private String commonName(int worker) {
    return "w" + worker + "-" + serial.incrementAndGet() + ".pkibench.test";
  }

  private static X509Certificate certificate(JsonNode data) {
    return PemKeys.certificate(
        data.path("certificate").asText().getBytes(StandardCharsets.US_ASCII));
  }

  private void check(X509Certificate issued, String name) throws GeneralSecurityException {
    if (!issued.getIssuerX500Principal().equals(ca.getSubjectX500Principal()))
      throw new CertificateException(
          "issued by "
              + issued.getIssuerX500Principal()
              + ", not by the mount's CA "
              + ca.getSubjectX500Principal());
    issued.verify(ca.getPublicKey());
    issued.checkValidity(Date.from(Instant.now()));
    String subject = issued.getSubjectX500Principal().getName(X500Principal.RFC2253);
    if (!subject.contains("CN=" + name))
      throw new CertificateException("issued for " + subject + ", not CN=" + name);
  }

  private static void checkPair(PrivateKey key, PublicKey certified)
      throws GeneralSecurityException {
    String algorithm =
        switch (certified.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> "Ed25519";
        };
    byte[] probe = "pkibench key-pair check".getBytes(StandardCharsets.US_ASCII);
    Signature s = Signature.getInstance(algorithm);
    s.initSign(key);
    s.update(probe);
    byte[] signature = s.sign();
    s.initVerify(certified);
    s.update(probe);
    if (!s.verify(signature))
      throw new GeneralSecurityException("the private key returned is not the certificate's");
  }

  private KeyPair keyPair() throws GeneralSecurityException {
    return switch (keyType) {
      case "rsa" -> {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(keyBits == 0 ? 2048 : keyBits);
        yield g.generateKeyPair();
      }
      case "ec", "any" -> {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec(keyBits == 384 ? "secp384r1" : "secp256r1"));
        yield g.generateKeyPair();
      }
      case "ed25519" -> KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
      default ->
          throw new IllegalArgumentException(
              "-p role=" + role + ": its key_type " + keyType + " is not rsa, ec or ed25519");
    };
  }

  private static String csr(KeyPair pair, String subject) throws Exception {
    String algorithm =
        switch (pair.getPublic().getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> "Ed25519";
        };
    var request =
        new JcaPKCS10CertificationRequestBuilder(new X500Name("CN=" + subject), pair.getPublic())
            .build(new JcaContentSignerBuilder(algorithm).build(pair.getPrivate()));
    StringWriter out = new StringWriter();
    try (JcaPEMWriter pem = new JcaPEMWriter(out)) {
      pem.writeObject(request);
    }
    return out.toString();
  }

  @Override
  public void close() {
    client.close();
  }
}
