package io.pkibench.keys.remote.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.keys.KeyNodeTally;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.TlsContexts;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.openbao.OpenBaoException;
import io.pkibench.openbao.OpenBaoTokens;
import io.pkibench.openbao.Transit;
import io.pkibench.pki.Secret;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Security;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * {@code --keys openbao:…}: private keys held by OpenBao's (or Vault's) transit engine, used
 * through the {@link TransitProvider}, so that every workload and study that takes {@code --keys}
 * signs with them unchanged. A key's chain is the one set on it in transit ({@code
 * set-certificate}, as serve openbao does with the test PKI's); a key without one gets a
 * self-signed certificate, signed by transit itself. Keyless services (digests, AES) run locally.
 */
public final class TransitKeySource implements KeySource {
  private final OpenBaoKeySpec spec;
  private final OpenBaoClient client;
  private final TransitProvider provider = new TransitProvider();

  /** {@code defaultRoot}: the TLS root when the spec names none (the test PKI's). */
  public TransitKeySource(OpenBaoKeySpec spec, Map<String, String> env, X509Certificate defaultRoot)
      throws GeneralSecurityException, IOException {
    this.spec = spec;
    X509Certificate root =
        spec.trust() == null ? defaultRoot : PemKeys.certificate(Files.readAllBytes(spec.trust()));
    Secret token =
        OpenBaoTokens.read(
            spec.tokenFile(),
            spec.tokenEnv(),
            env,
            "--keys " + spec.describe() + " (token-env=VAR or token-file=F)");
    try {
      this.client =
          new OpenBaoClient(
              spec.nodes(), token, TlsContexts.trusting(root), Duration.ofSeconds(30));
    } finally {
      token.wipe();
    }
    // JSSE signs its handshake through whichever installed provider takes the key: install ours
    // last, where it only ever takes transit keys (its services declare the class)
    synchronized (TransitKeySource.class) {
      if (Security.getProvider(TransitProvider.NAME) == null)
        Security.addProvider(new TransitProvider());
    }
  }

  /** The transit key name {@code alias} maps to. */
  private String nameOf(String alias) {
    return spec.key() != null ? spec.key() : alias;
  }

  @Override
  public SigningKey key(String alias) throws GeneralSecurityException {
    String name = nameOf(alias);
    JsonNode described;
    try {
      described = client.get(spec.mount() + "/keys/" + name);
    } catch (OpenBaoException e) {
      throw new GeneralSecurityException(
          "--keys " + spec.describe() + ": transit key " + name + ": " + e.getMessage(), e);
    }
    JsonNode data = described.path("data");
    if (!data.path("supports_signing").asBoolean())
      throw new GeneralSecurityException(
          "--keys "
              + spec.describe()
              + ": transit key "
              + name
              + " is "
              + data.path("type").asText()
              + ", which does not sign; use an RSA, ECDSA or Ed25519 key");
    PublicKey publicKey = Transit.latestPublicKey(described);
    TransitKey handle =
        switch (publicKey) {
          case RSAPublicKey rsa -> new TransitKey.Rsa(name, rsa.getModulus(), this);
          case ECPublicKey ec -> new TransitKey.Ec(name, ec.getParams(), this);
          default -> new TransitKey.Ed(name, this);
        };
    String chainPem =
        data.path("keys")
            .path(data.path("latest_version").asText())
            .path("certificate_chain")
            .asText();
    List<X509Certificate> chain =
        chainPem.isBlank()
            ? List.of(selfSigned(handle, publicKey, name))
            : PemKeys.certificates(chainPem.getBytes(StandardCharsets.US_ASCII));
    if (!chain.get(0).getPublicKey().equals(publicKey))
      throw new GeneralSecurityException(
          "--keys "
              + spec.describe()
              + ": transit key "
              + name
              + "'s certificate chain is for another key than its latest version's");
    return new SigningKey(alias, handle, chain, provider);
  }

  private X509Certificate selfSigned(TransitKey key, PublicKey publicKey, String name)
      throws GeneralSecurityException {
    String algorithm =
        switch (key) {
          case TransitKey.Rsa r -> "SHA256withRSA";
          case TransitKey.Ec e -> "SHA256withECDSA";
          case TransitKey.Ed e -> "Ed25519";
        };
    X500Name subject = new X500Name("CN=OpenBao transit " + name + ",O=pkibench self-signed");
    Instant now = Instant.now();
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              new JcaX509v3CertificateBuilder(
                      subject,
                      BigInteger.valueOf(now.toEpochMilli()),
                      Date.from(now.minusSeconds(60)),
                      Date.from(now.plus(Duration.ofDays(365))),
                      subject,
                      publicKey)
                  .build(new JcaContentSignerBuilder(algorithm).setProvider(provider).build(key)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot self-sign for transit key " + name, e);
    }
  }

  /**
   * Asks transit to sign {@code input}: a digest made with {@code digestName} (RSA PKCS#1 v1.5 or,
   * with {@code pss}, PSS; ECDSA in ASN.1), or, with none, the message (Ed25519).
   */
  byte[] sign(TransitKey key, String digestName, boolean pss, byte[] input)
      throws SignatureException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("input", Transit.base64(input));
    String path = spec.mount() + "/sign/" + key.name();
    if (digestName != null) {
      path += "/" + Transit.hashName(digestName);
      body.put("prehashed", true);
      if (key instanceof TransitKey.Rsa) body.put("signature_algorithm", pss ? "pss" : "pkcs1v15");
      // transit's PSS salt is as long as it fits ("auto") unless told: "hash" is the digest's
      // length, what SHA256withRSA/PSS verifiers (BouncyCastle, RFC 4055's defaults) expect.
      if (pss) body.put("salt_length", "hash");
    }
    try {
      return Transit.valueBytes(client.post(path, body).path("data").path("signature").asText());
    } catch (OpenBaoException | IllegalArgumentException e) {
      throw new SignatureException(
          "OpenBao transit sign with " + key.name() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Provider provider(String type, String algorithm) throws GeneralSecurityException {
    if (provider.getService(type, algorithm) != null) return provider;
    return ProviderChoice.best().providerFor(type, algorithm);
  }

  @Override
  public List<String> aliases() throws GeneralSecurityException {
    if (spec.key() != null) return List.of(spec.key());
    try {
      return client.list(spec.mount() + "/keys");
    } catch (OpenBaoException e) {
      throw new GeneralSecurityException("--keys " + spec.describe() + ": " + e.getMessage(), e);
    }
  }

  /** Each node's calls and the ones it did not answer (or answered 5xx). */
  @Override
  public List<KeyNodeTally> nodes() {
    List<KeyNodeTally> nodes = new ArrayList<>();
    for (int i = 0; i < spec.nodes().size(); i++)
      nodes.add(
          new KeyNodeTally(
              spec.nodes().get(i).toString(),
              1,
              client.calls(i),
              client.failures(i),
              client.up(i),
              List.of()));
    return nodes;
  }

  @Override
  public String describe() {
    return spec.describe();
  }

  @Override
  public void close() {
    client.close();
  }
}
