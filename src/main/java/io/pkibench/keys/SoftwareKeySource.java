package io.pkibench.keys;

import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/** Keys from the test PKI's PKCS#12 files, used through the chosen provider. */
public final class SoftwareKeySource implements KeySource {
  private static final Provider BOUNCY_CASTLE = new BouncyCastleProvider();
  private final Supplier<TestPki> pkiSupplier;
  private final ProviderChoice choice;

  /**
   * Plain {@code --keys software}: an algorithm the best provider lacks (ACCP has no ML-KEM or
   * SLH-DSA) runs on the JDK, else BouncyCastle.
   */
  private final boolean fallback;

  private TestPki pki;

  /** The PKI is opened (and created on first use) only when a key is first asked for. */
  public SoftwareKeySource(Supplier<TestPki> pki, ProviderChoice choice) {
    this(pki, choice, false);
  }

  /**
   * With {@code fallback}, an algorithm {@code choice} lacks goes to the JDK, else BouncyCastle;
   * the provider used is the one named in the result.
   */
  public SoftwareKeySource(Supplier<TestPki> pki, ProviderChoice choice, boolean fallback) {
    this.pkiSupplier = pki;
    this.choice = choice;
    this.fallback = fallback;
  }

  @Override
  public synchronized SigningKey key(String alias) throws GeneralSecurityException {
    if (pki == null) pki = pkiSupplier.get();
    Path file = pki.keystore(alias);
    if (!Files.exists(file)) {
      throw new GeneralSecurityException(
          "no key '"
              + alias
              + "' in the test PKI: "
              + file
              + " is missing; run 'pkibench pki init'");
    }
    Secret password = pki.keystorePassword();
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      PrivateKey key;
      try {
        key = readKey(store, file, alias, password);
      } catch (NoSuchAlgorithmException | UnrecoverableKeyException jdkLacksIt) {
        // SLH-DSA: the JDK has no key factory for it, so its PKCS#12 reader cannot make the key;
        // BouncyCastle's can
        store = KeyStore.getInstance("PKCS12", BOUNCY_CASTLE);
        key = readKey(store, file, alias, password);
      }
      List<X509Certificate> chain = new ArrayList<>();
      for (Certificate c : store.getCertificateChain(alias)) chain.add((X509Certificate) c);
      String signatureAlgorithm = KeyAlgorithm.signatureAlgorithmFor(key);
      Provider provider = provider("Signature", signatureAlgorithm);
      return new SigningKey(alias, translate(key, provider), chain, provider);
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static PrivateKey readKey(KeyStore store, Path file, String alias, Secret password)
      throws GeneralSecurityException, IOException {
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, password.chars());
    }
    PrivateKey key = (PrivateKey) store.getKey(alias, password.chars());
    if (key == null)
      throw new UnrecoverableKeyException("no private key entry '" + alias + "' in " + file);
    return key;
  }

  /**
   * Re-creates the key inside {@code provider}, so the provider uses its native form and not a
   * conversion per operation.
   */
  private static PrivateKey translate(PrivateKey key, Provider provider)
      throws GeneralSecurityException {
    String algorithm = key.getAlgorithm().equals("EdDSA") ? "Ed25519" : key.getAlgorithm();
    if (algorithm.startsWith("ML-DSA"))
      algorithm = "ML-DSA"; // every provider's key factory takes the family name
    try {
      return KeyFactory.getInstance(algorithm, provider)
          .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
    } catch (NoSuchAlgorithmException e) {
      return key; // the provider takes foreign keys as they are
    }
  }

  /** Every end-entity key of the test PKI (not the CAs'). */
  @Override
  public synchronized List<String> aliases() {
    if (pki == null) pki = pkiSupplier.get();
    return pki.entities().stream().filter(e -> !e.isCa()).map(Entity::alias).toList();
  }

  @Override
  public Provider provider(String type, String algorithm) throws GeneralSecurityException {
    try {
      return choice.providerFor(type, algorithm);
    } catch (NoSuchAlgorithmException lacking) {
      if (!fallback) throw lacking;
      for (ProviderChoice other : List.of(ProviderChoice.JDK, ProviderChoice.BC)) {
        try {
          return other.providerFor(type, algorithm);
        } catch (NoSuchAlgorithmException alsoLacking) {
          // the next one
        }
      }
      throw lacking;
    }
  }

  @Override
  public String describe() {
    return "software:" + choice.flag;
  }
}
