package io.pkibench.pki;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.pkibench.text.JsonErrors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.Security;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AccessDescription;
import org.bouncycastle.asn1.x509.AuthorityInformationAccess;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLDistPoint;
import org.bouncycastle.asn1.x509.CRLNumber;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.DistributionPoint;
import org.bouncycastle.asn1.x509.DistributionPointName;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The test PKI: a root, two intermediates with distinct CRL distribution points, signers, TLS, TSA
 * and key-server certificates, and CRLs, as PKCS#12 + PEM in one directory. Created once; {@link
 * #init} on an existing PKI changes nothing.
 *
 * <p>Layout: {@code ALIAS.p12} (key + chain, password in {@code keystore.pass}), {@code ALIAS.pem}
 * (certificate), {@code ca-chain.pem}, {@code crl/CA.crl} (DER) and {@code crl/CA.crl.pem}, and
 * {@code pki.json}, the manifest, written last so that an interrupted init is redone.
 */
public final class TestPki {
  public static final String SCHEMA = "pkibench.pki/1";
  static final String PQ_CA_CHAIN = "ca-chain-ml-dsa-65.pem";
  public static final String DEFAULT_CRL_BASE_URL = "http://127.0.0.1:18080/crl/";
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(SerializationFeature.INDENT_OUTPUT);

  private final Path dir;
  private final Manifest manifest;

  /** The manifest, the contract of the directory: what a later study or server may rely on. */
  public record Manifest(
      String schema, Instant createdAt, String crlBaseUrl, List<Entity> entities) {}

  private TestPki(Path dir, Manifest manifest) {
    this.dir = dir;
    this.manifest = manifest;
  }

  /**
   * Opens the PKI in {@code dir}, creating it first when it is not there (the "created on first
   * use" path).
   */
  public static TestPki openOrInit(Path dir, InstantSource clock, Consumer<String> log) {
    return Files.exists(dir.resolve("pki.json"))
        ? open(dir)
        : init(dir, clock, DEFAULT_CRL_BASE_URL, log);
  }

  public static TestPki open(Path dir) {
    Path manifestFile = dir.resolve("pki.json");
    try {
      Manifest m = JSON.readValue(manifestFile.toFile(), Manifest.class);
      if (!SCHEMA.equals(m.schema())) {
        throw new IllegalArgumentException(
            manifestFile
                + " has schema "
                + m.schema()
                + ", expected "
                + SCHEMA
                + "; move the directory away and run 'pkibench pki init' again");
      }
      TestPki pki = new TestPki(dir, m);
      return pki.missing().isEmpty() ? pki : pki.topUp();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the test PKI manifest "
              + manifestFile
              + " ("
              + (e instanceof JsonProcessingException j ? JsonErrors.inWords(j) : e.getMessage())
              + "); move "
              + dir
              + " away and run 'pkibench pki init --dir "
              + dir
              + "'",
          e);
    }
  }

  /** Creates the PKI in {@code dir}, or opens it unchanged when it already exists. */
  public static TestPki init(
      Path dir, InstantSource clock, String crlBaseUrl, Consumer<String> log) {
    if (Files.exists(dir.resolve("pki.json"))) {
      log.accept("test PKI already present in " + dir + "; nothing changed");
      return open(dir);
    }
    try {
      if (Files.isDirectory(dir)) {
        try (var entries = Files.list(dir)) {
          if (entries.findAny().isPresent()) {
            throw new FileAlreadyExistsException(
                dir
                    + " exists, is not empty and holds no test PKI (no pki.json); choose another --dir or empty it");
          }
        }
      }
      Path parent = dir.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      // Built beside the target and renamed into place: a crash never leaves a half PKI that looks
      // whole.
      Path staging = Files.createTempDirectory(parent, ".pki-init-");
      log.accept("creating the test PKI in " + dir + " ...");
      Manifest manifest = new Builder(staging, clock.instant(), crlBaseUrl).build();
      if (Files.isDirectory(dir)) Files.delete(dir);
      Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
      log.accept(
          "test PKI ready: "
              + manifest.entities().size()
              + " certificates, CRLs for root-ca, intermediate-a, intermediate-b");
      return new TestPki(dir, manifest);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create the test PKI in " + dir + ": " + e.getMessage(), e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create the test PKI: " + e.getMessage(), e);
    }
  }

  /**
   * The OCSP responder of certificates issued by {@code caAlias}: {@code ../ocsp/CA} beside the CRL
   * directory, so {@code serve crl} answers both ({@code
   * http://127.0.0.1:18080/ocsp/intermediate-a} by default).
   */
  public static String ocspUrl(String crlBaseUrl, String caAlias) {
    String base = crlBaseUrl.endsWith("/") ? crlBaseUrl : crlBaseUrl + "/";
    return URI.create(base).resolve("../ocsp/" + caAlias).toString();
  }

  /**
   * The standard entities this PKI lacks: it was made by an older pkibench (before the ML-DSA keys,
   * say).
   */
  private List<Entity> missing() {
    var have = manifest.entities().stream().map(Entity::alias).collect(Collectors.toSet());
    return Entity.standardSet().stream().filter(e -> !have.contains(e.alias())).toList();
  }

  /**
   * Issues the entities a PKI made by an older pkibench lacks, with its own CAs, and rewrites the
   * manifest last: an existing key or certificate is never replaced. Under a file lock, as several
   * processes (a study's services) may open the PKI at once; whoever comes second finds the work
   * done.
   */
  private TestPki topUp() {
    Path lockFile = dir.resolve(".top-up.lock");
    try (var channel =
            FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        var lock = channel.lock()) {
      Manifest current = JSON.readValue(dir.resolve("pki.json").toFile(), Manifest.class);
      TestPki now = new TestPki(dir, current);
      List<Entity> missing = now.missing();
      if (missing.isEmpty()) return now;
      List<Entity> all = new ArrayList<>(current.entities());
      all.addAll(missing);
      Secret password = keystorePassword();
      new Builder(dir, Instant.now(), current.crlBaseUrl()).issueMissing(now, missing, password);
      Manifest updated =
          new Manifest(SCHEMA, current.createdAt(), current.crlBaseUrl(), List.copyOf(all));
      Path staged = dir.resolve("pki.json.new");
      JSON.writeValue(staged.toFile(), updated);
      Files.move(
          staged,
          dir.resolve("pki.json"),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      return new TestPki(dir, updated);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot add the new keys to the test PKI "
              + dir
              + ": "
              + e.getMessage()
              + "; move it away and run 'pkibench pki init --dir "
              + dir
              + "'",
          e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException(
          "cannot add the new keys to the test PKI " + dir + ": " + e.getMessage(), e);
    }
  }

  public Path dir() {
    return dir;
  }

  public Manifest manifest() {
    return manifest;
  }

  public List<Entity> entities() {
    return manifest.entities();
  }

  public Path keystore(String alias) {
    return dir.resolve(alias + ".p12");
  }

  public Path certificatePem(String alias) {
    return dir.resolve(alias + ".pem");
  }

  public Path caChainPem() {
    return dir.resolve("ca-chain.pem");
  }

  /** The ML-DSA-65 intermediate and root, PEM: the trust of {@code signer-ml-dsa-65-2}. */
  public Path pqCaChainPem() {
    return dir.resolve(PQ_CA_CHAIN);
  }

  public Path crl(String caAlias) {
    return dir.resolve("crl").resolve(caAlias + ".crl");
  }

  /** The CRL of {@code caAlias}, parsed. */
  public X509CRL crlOf(String caAlias) {
    try (InputStream in = Files.newInputStream(crl(caAlias))) {
      return (X509CRL) CertificateFactory.getInstance("X.509").generateCRL(in);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "no CRL for '" + caAlias + "' in the test PKI " + dir + "; re-create it", e);
    }
  }

  public Secret keystorePassword() {
    try {
      return Secret.fromFile(dir.resolve("keystore.pass"));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read " + dir.resolve("keystore.pass") + "; the test PKI is damaged, re-create it",
          e);
    }
  }

  public X509Certificate certificate(String alias) {
    try (InputStream in = Files.newInputStream(certificatePem(alias))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "no certificate '" + alias + "' in the test PKI " + dir, e);
    }
  }

  /** Issues every certificate and CRL into a staging directory. */
  /** {@code certs} as PEM text, in order: what the test PKI writes, and what samples hand out. */
  public static String pem(List<X509Certificate> certs) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(text)) {
      for (X509Certificate c : certs) w.writeObject(c);
    }
    return text.toString();
  }

  private static final class Builder {
    private static final Duration CA_VALIDITY = Duration.ofDays(3650);
    private static final Duration LEAF_VALIDITY = Duration.ofDays(730);
    private static final Duration CRL_VALIDITY = Duration.ofDays(365);
    private final Path out;
    private final Instant now;
    private final String crlBaseUrl;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, KeyPair> keys = new HashMap<>();
    private final Map<String, X509Certificate> certificates = new HashMap<>();
    private final Map<String, List<X509Certificate>> chains = new HashMap<>();

    Builder(Path out, Instant now, String crlBaseUrl) {
      this.out = out;
      this.now = now;
      this.crlBaseUrl = crlBaseUrl.endsWith("/") ? crlBaseUrl : crlBaseUrl + "/";
    }

    Manifest build() throws IOException, GeneralSecurityException, OperatorCreationException {
      char[] password = newPassword();
      Path passFile = out.resolve("keystore.pass");
      Files.writeString(passFile, new String(password) + "\n");
      Files.setPosixFilePermissions(passFile, PosixFilePermissions.fromString("rw-------"));
      List<Entity> entities = Entity.standardSet();
      for (Entity e : entities) create(e, password);
      Files.writeString(
          out.resolve("ca-chain.pem"),
          pem(
              List.of(
                  certificates.get("intermediate-a"),
                  certificates.get("intermediate-b"),
                  certificates.get("root-ca"))));
      writePqChain();
      Files.createDirectories(out.resolve("crl"));
      for (Entity ca : entities.stream().filter(Entity::isCa).toList()) {
        writeCrl(
            ca.alias(),
            entities.stream().filter(e -> e.revoked() && e.issuer().equals(ca.alias())).toList());
      }
      Arrays.fill(password, '\0');
      Manifest manifest = new Manifest(SCHEMA, now, crlBaseUrl, entities);
      JSON.writeValue(out.resolve("pki.json").toFile(), manifest);
      return manifest;
    }

    /** A key pair, its certificate from its issuer (already made), its PKCS#12 and PEM files. */
    private void create(Entity e, char[] password)
        throws GeneralSecurityException, OperatorCreationException, IOException {
      KeyPair pair = e.keyAlgorithm().generate(generatorOf(e.keyAlgorithm()));
      keys.put(e.alias(), pair);
      X509Certificate cert = issue(e, pair);
      certificates.put(e.alias(), cert);
      List<X509Certificate> chain = new ArrayList<>();
      chain.add(cert);
      if (!e.alias().equals(e.issuer())) chain.addAll(chains.get(e.issuer()));
      chains.put(e.alias(), chain);
      writeKeystore(e.alias(), pair.getPrivate(), chain, password);
      Files.writeString(out.resolve(e.alias() + ".pem"), pem(List.of(cert)));
    }

    /** The JDK's own generators (SLH-DSA, which the JDK lacks, from BouncyCastle). */
    private static Provider generatorOf(KeyAlgorithm algorithm) {
      if (algorithm.isRsa()) return Security.getProvider("SunRsaSign");
      if (algorithm.signatureAlgorithm.equals("ML-DSA")) return Security.getProvider("SUN");
      if (algorithm.signatureAlgorithm.equals("SLH-DSA")) return new BouncyCastleProvider();
      return Security.getProvider("SunEC");
    }

    /** The ML-DSA-65 chain without its leaf, as {@code ca-chain.pem} is for the RSA chain. */
    private void writePqChain() throws IOException {
      Files.writeString(
          out.resolve(PQ_CA_CHAIN),
          pem(List.of(certificates.get(Entity.PQ_INTERMEDIATE), certificates.get(Entity.PQ_ROOT))));
    }

    /**
     * Issues {@code missing} into the existing PKI {@code pki}, its issuers read from their PKCS#12
     * files when not new.
     */
    void issueMissing(TestPki pki, List<Entity> missing, Secret secret)
        throws GeneralSecurityException, OperatorCreationException, IOException {
      char[] password = secret.chars();
      for (Entity e : missing) {
        if (!e.alias().equals(e.issuer()) && !keys.containsKey(e.issuer())) {
          KeyStore store = KeyStore.getInstance("PKCS12");
          try (InputStream in = Files.newInputStream(pki.keystore(e.issuer()))) {
            store.load(in, password);
          }
          PrivateKey key = (PrivateKey) store.getKey(e.issuer(), password);
          var issuerChain = new ArrayList<X509Certificate>();
          for (var c : store.getCertificateChain(e.issuer())) issuerChain.add((X509Certificate) c);
          keys.put(e.issuer(), new KeyPair(issuerChain.get(0).getPublicKey(), key));
          certificates.put(e.issuer(), issuerChain.get(0));
          chains.put(e.issuer(), issuerChain);
        }
        create(e, password);
      }
      if (certificates.containsKey(Entity.PQ_ROOT)) writePqChain();
      for (Entity ca : missing.stream().filter(Entity::isCa).toList())
        writeCrl(ca.alias(), List.of());
    }

    private char[] newPassword() {
      byte[] bytes = new byte[24];
      random.nextBytes(bytes);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).toCharArray();
    }

    private X509Certificate issue(Entity e, KeyPair pair)
        throws GeneralSecurityException, OperatorCreationException, IOException {
      boolean root = e.role() == Role.ROOT_CA;
      X500Name subject = name(e.alias());
      X500Name issuer = root ? subject : name(e.issuer());
      PrivateKey issuerKey = root ? pair.getPrivate() : keys.get(e.issuer()).getPrivate();
      Instant notAfter = now.plus(e.isCa() ? CA_VALIDITY : LEAF_VALIDITY);
      var builder =
          new JcaX509v3CertificateBuilder(
              issuer,
              new BigInteger(127, random),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(notAfter),
              subject,
              pair.getPublic());
      var ext = new JcaX509ExtensionUtils();
      builder.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
      builder.addExtension(
          Extension.authorityKeyIdentifier,
          false,
          root
              ? ext.createAuthorityKeyIdentifier(pair.getPublic())
              : ext.createAuthorityKeyIdentifier(certificates.get(e.issuer())));
      switch (e.role()) {
        case ROOT_CA -> {
          builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
          builder.addExtension(
              Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        }
        case INTERMEDIATE_CA -> {
          builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
          builder.addExtension(
              Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        }
        default -> {
          builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
          builder.addExtension(Extension.keyUsage, true, new KeyUsage(keyUsage(e)));
          builder.addExtension(
              Extension.extendedKeyUsage,
              e.role() == Role.TSA,
              new ExtendedKeyUsage(purposes(e.role())));
          if (e.role() == Role.TLS_SERVER || e.role() == Role.KEY_SERVER) {
            builder.addExtension(
                Extension.subjectAlternativeName,
                false,
                new GeneralNames(
                    new GeneralName[] {
                      new GeneralName(GeneralName.dNSName, "localhost"),
                      new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                      new GeneralName(GeneralName.iPAddress, "::1")
                    }));
          } else if (e.role() == Role.SIGNER) {
            builder.addExtension(
                Extension.subjectAlternativeName,
                false,
                new GeneralNames(
                    new GeneralName(GeneralName.rfc822Name, e.alias() + "@pkibench.test")));
          }
        }
      }
      if (!root) {
        String crlUrl = crlBaseUrl + e.issuer() + ".crl";
        builder.addExtension(
            Extension.cRLDistributionPoints,
            false,
            new CRLDistPoint(
                new DistributionPoint[] {
                  new DistributionPoint(
                      new DistributionPointName(
                          new GeneralNames(
                              new GeneralName(GeneralName.uniformResourceIdentifier, crlUrl))),
                      null,
                      null)
                }));
        builder.addExtension(
            Extension.authorityInfoAccess,
            false,
            new AuthorityInformationAccess(
                AccessDescription.id_ad_ocsp,
                new GeneralName(
                    GeneralName.uniformResourceIdentifier, ocspUrl(crlBaseUrl, e.issuer()))));
      }
      ContentSigner signer =
          new JcaContentSignerBuilder(contentSignature(root ? e.alias() : e.issuer()))
              .build(issuerKey);
      return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    }

    /**
     * The signature CA {@code caAlias} signs certificates and CRLs with: SHA256withRSA, or ML-DSA
     * by parameter set (RFC 9881).
     */
    private static String contentSignature(String caAlias) {
      KeyAlgorithm alg =
          Entity.standardSet().stream()
              .filter(e -> e.alias().equals(caAlias))
              .findFirst()
              .orElseThrow()
              .keyAlgorithm();
      return alg.isPostQuantum() ? alg.jcaKeyType() : alg.signatureAlgorithm;
    }

    private static int keyUsage(Entity e) {
      boolean rsa =
          e.keyAlgorithm() == KeyAlgorithm.RSA2048 || e.keyAlgorithm() == KeyAlgorithm.RSA3072;
      return switch (e.role()) {
        // RSA signers also wrap keys: the RSFN and S/MIME workloads encrypt to them.
        case SIGNER ->
            KeyUsage.digitalSignature
                | KeyUsage.nonRepudiation
                | (rsa ? KeyUsage.keyEncipherment : 0);
        case TLS_SERVER, KEY_SERVER -> KeyUsage.digitalSignature | KeyUsage.keyEncipherment;
        case TSA -> KeyUsage.digitalSignature | KeyUsage.nonRepudiation;
        default -> KeyUsage.digitalSignature;
      };
    }

    private static KeyPurposeId[] purposes(Role role) {
      return switch (role) {
        case TLS_SERVER -> new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth};
        case TLS_CLIENT -> new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth};
        case TSA -> new KeyPurposeId[] {KeyPurposeId.id_kp_timeStamping};
        case KEY_SERVER ->
            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth};
        default ->
            new KeyPurposeId[] {KeyPurposeId.id_kp_emailProtection, KeyPurposeId.id_kp_clientAuth};
      };
    }

    private static X500Name name(String alias) {
      return new X500Name("CN=pkibench " + alias + ",O=pkibench test PKI,C=BR");
    }

    private void writeKeystore(
        String alias, PrivateKey key, List<X509Certificate> chain, char[] password)
        throws GeneralSecurityException, IOException {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(alias, key, password, chain.toArray(new X509Certificate[0]));
      try (OutputStream o = Files.newOutputStream(out.resolve(alias + ".p12"))) {
        store.store(o, password);
      }
    }

    private void writeCrl(String ca, List<Entity> revoked)
        throws IOException, GeneralSecurityException, OperatorCreationException {
      X509Certificate caCert = certificates.get(ca);
      var builder = new X509v2CRLBuilder(name(ca), Date.from(now.minus(Duration.ofHours(1))));
      builder.setNextUpdate(Date.from(now.plus(CRL_VALIDITY)));
      for (Entity e : revoked) {
        builder.addCRLEntry(
            certificates.get(e.alias()).getSerialNumber(),
            Date.from(now.minus(Duration.ofMinutes(30))),
            CRLReason.keyCompromise);
      }
      builder.addExtension(
          Extension.authorityKeyIdentifier,
          false,
          new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(caCert));
      builder.addExtension(Extension.cRLNumber, false, new CRLNumber(BigInteger.ONE));
      PrivateKey caKey = keys.get(ca).getPrivate();
      X509CRLHolder crl =
          builder.build(new JcaContentSignerBuilder(contentSignature(ca)).build(caKey));
      Files.write(out.resolve("crl").resolve(ca + ".crl"), crl.getEncoded());
      StringWriter pem = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(pem)) {
        w.writeObject(crl);
      }
      Files.writeString(out.resolve("crl").resolve(ca + ".crl.pem"), pem.toString());
    }
  }
}
