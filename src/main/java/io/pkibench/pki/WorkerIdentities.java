package io.pkibench.pki;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * One client certificate per worker, issued by the test PKI beside one of its client identities
 * (the same issuer, key type and purpose; subject "CN=pkibench tls-client worker 7"), so that a
 * server sees as many clients as the run has workers rather than one certificate reused by all.
 * Each is issued on first use and kept in {@code identities/ALIAS/} of the PKI directory (PKCS#12
 * under the PKI's keystore password), so the next run finds it: an RSA key takes a while to
 * generate.
 */
public final class WorkerIdentities {
  private static final Duration VALIDITY = Duration.ofDays(730);

  /** A worker's private key and its chain, leaf first. */
  public record Issued(PrivateKey key, List<X509Certificate> chain) {}

  private final TestPki pki;
  private final String template;
  private final String issuer;
  private final InstantSource clock;
  private final SecureRandom random = new SecureRandom();

  /**
   * Beside {@code template}, an end-entity alias of {@code pki} (e.g. tls-client); refused naming
   * it when it is not one.
   */
  public WorkerIdentities(TestPki pki, String template, InstantSource clock) {
    Entity e =
        pki.entities().stream()
            .filter(x -> x.alias().equals(template))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "the test PKI has no identity '"
                            + template
                            + "'; give one of its aliases, e.g. tls-client"));
    if (e.isCa())
      throw new IllegalArgumentException(
          "'" + template + "' is a CA of the test PKI; give a client identity, e.g. tls-client");
    this.pki = pki;
    this.template = template;
    this.issuer = e.issuer();
    this.clock = clock;
  }

  /** Where worker {@code worker}'s identity is kept. */
  public Path file(int worker) {
    return pki.dir()
        .resolve("identities")
        .resolve(template)
        .resolve(template + "-worker-" + worker + ".p12");
  }

  /**
   * Worker {@code worker}'s identity (0-based), read from the PKI directory, or issued and kept
   * there first.
   */
  public synchronized Issued forWorker(int worker) throws GeneralSecurityException, IOException {
    if (worker < 0) throw new IllegalArgumentException("worker " + worker);
    Path file = file(worker);
    char[] password = pki.keystorePassword().chars();
    try {
      if (Files.exists(file)) return read(file, password);
      Issued issued = issue(worker, password);
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(
          "worker-" + worker,
          issued.key(),
          password,
          issued.chain().toArray(new X509Certificate[0]));
      Files.createDirectories(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp");
      try {
        try (OutputStream out = Files.newOutputStream(tmp)) {
          store.store(out, password);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(tmp);
      }
      return issued;
    } finally {
      Arrays.fill(password, '\0');
    }
  }

  private static Issued read(Path file, char[] password)
      throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, password);
    }
    for (String alias : Collections.list(store.aliases())) {
      if (store.isKeyEntry(alias)) {
        List<X509Certificate> chain = new ArrayList<>();
        for (var c : store.getCertificateChain(alias)) chain.add((X509Certificate) c);
        return new Issued((PrivateKey) store.getKey(alias, password), chain);
      }
    }
    throw new IOException(file + " holds no key; delete it and it is issued again");
  }

  private Issued issue(int worker, char[] password) throws GeneralSecurityException, IOException {
    KeyStore issuerStore = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(pki.keystore(issuer))) {
      issuerStore.load(in, password);
    }
    PrivateKey issuerKey = (PrivateKey) issuerStore.getKey(issuer, password);
    List<X509Certificate> issuerChain = new ArrayList<>();
    for (var c : issuerStore.getCertificateChain(issuer)) issuerChain.add((X509Certificate) c);
    X509Certificate like = pki.certificate(template);

    KeyPair pair = generatorLike(like).generateKeyPair();
    Instant now = clock.instant();
    X500Name subject =
        new X500Name("CN=pkibench " + template + " worker " + worker + ",O=pkibench test PKI,C=BR");
    var builder =
        new JcaX509v3CertificateBuilder(
            X500Name.getInstance(issuerChain.get(0).getSubjectX500Principal().getEncoded()),
            new BigInteger(127, random),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(VALIDITY)),
            subject,
            pair.getPublic());
    var ext = new JcaX509ExtensionUtils();
    builder.addExtension(
        Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
    builder.addExtension(
        Extension.authorityKeyIdentifier,
        false,
        ext.createAuthorityKeyIdentifier(issuerChain.get(0)));
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    builder.addExtension(
        Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
    try {
      X509Certificate leaf =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder(like.getSigAlgName()).build(issuerKey)));
      List<X509Certificate> chain = new ArrayList<>(List.of(leaf));
      chain.addAll(issuerChain);
      return new Issued(pair.getPrivate(), chain);
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(
          "cannot sign worker "
              + worker
              + "'s certificate with "
              + issuer
              + "'s key: "
              + e.getMessage(),
          e);
    }
  }

  /** A generator of keys of {@code like}'s type and size: RSA of its modulus, EC of its curve. */
  private static KeyPairGenerator generatorLike(X509Certificate like)
      throws GeneralSecurityException {
    if (like.getPublicKey() instanceof RSAPublicKey rsa) {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(rsa.getModulus().bitLength());
      return g;
    }
    if (like.getPublicKey() instanceof ECPublicKey ec) {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(ec.getParams());
      return g;
    }
    throw new GeneralSecurityException(
        "the test PKI's "
            + like.getSubjectX500Principal().getName()
            + " has a "
            + like.getPublicKey().getAlgorithm()
            + " key; per-worker identities are RSA or EC");
  }
}
