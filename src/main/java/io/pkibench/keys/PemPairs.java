package io.pkibench.keys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A user's own client identities: a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key),
 * read in name order, each key checked to belong to its certificate; worker i presents the i-th.
 * Shared by the TLS clients' {@code -p identities=DIR} and the key server's client ({@code --keys
 * remote:…,identities=DIR}).
 */
public final class PemPairs {
  private PemPairs() {}

  /**
   * The key files of {@code dir}, in name order: one per pair, which is how many identities it
   * holds.
   */
  public static List<Path> keyFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".key")).sorted().toList();
    }
  }

  /**
   * Every pair of {@code dir} in name order; refused naming {@code flag} (e.g. "-p identities=DIR")
   * and the pair that cannot be read.
   */
  public static List<SigningKey> read(Path dir, String flag) throws IOException {
    List<Path> keys = keyFiles(dir);
    if (keys.isEmpty())
      throw new IllegalArgumentException(
          flag + ": holds no PEM pair (NAME.crt or NAME.pem with NAME.key)");
    List<SigningKey> pairs = new ArrayList<>();
    for (Path keyFile : keys) {
      String name = keyFile.getFileName().toString().replaceFirst("\\.key$", "");
      Path cert =
          Files.exists(dir.resolve(name + ".crt"))
              ? dir.resolve(name + ".crt")
              : dir.resolve(name + ".pem");
      String pair =
          flag + ": " + name + " (" + cert.getFileName() + " with " + keyFile.getFileName() + ")";
      try {
        List<X509Certificate> chain = PemKeys.certificates(Files.readAllBytes(cert));
        if (chain.isEmpty())
          throw new IllegalArgumentException("no X.509 certificate in " + cert.getFileName());
        PrivateKey key = PemKeys.privateKey(Files.readAllBytes(keyFile));
        String mismatch = mismatch(key, chain.get(0));
        if (mismatch != null) throw new IllegalArgumentException(mismatch);
        pairs.add(
            new SigningKey(
                name, key, chain, ProviderChoice.JDK.providerFor("Signature", signatureFor(key))));
      } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
        throw new IllegalArgumentException(pair + ": cannot be read: " + e.getMessage(), e);
      }
    }
    return pairs;
  }

  /** SHA-256 with the key's family: what a probe, and a client's identity, signs with. */
  public static String signatureFor(PrivateKey key) {
    return switch (family(key.getAlgorithm())) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      default -> key.getAlgorithm();
    };
  }

  /**
   * One name per key family: BouncyCastle calls an EC key "ECDSA" where the JDK says "EC", and an
   * Ed25519 key is "EdDSA" or "Ed25519" depending on who made it; which provider read the file must
   * not decide whether it matches.
   */
  public static String family(String algorithm) {
    return switch (algorithm) {
      case "ECDSA" -> "EC";
      case "EdDSA" -> "Ed25519";
      default -> algorithm;
    };
  }

  /**
   * Why {@code key} is not the private half of {@code certificate}'s key, or null: a signature made
   * with one must verify with the other.
   */
  public static String mismatch(PrivateKey key, X509Certificate certificate) {
    if (!family(key.getAlgorithm()).equals(family(certificate.getPublicKey().getAlgorithm()))) {
      return "a "
          + key.getAlgorithm()
          + " key cannot belong to the "
          + certificate.getPublicKey().getAlgorithm()
          + " certificate";
    }
    try {
      byte[] probe =
          "pkibench: does this key belong to this certificate?".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(signatureFor(key));
      s.initSign(PemKeys.jdkForm(key));
      s.update(probe);
      byte[] signature = s.sign();
      Signature v = Signature.getInstance(signatureFor(key));
      v.initVerify(certificate.getPublicKey());
      v.update(probe);
      return v.verify(signature)
          ? null
          : "this key does not belong to the certificate (a signature made with it does not verify with the certificate's key)";
    } catch (GeneralSecurityException e) {
      return "cannot check that this key belongs to the certificate (" + e.getMessage() + ")";
    }
  }
}
