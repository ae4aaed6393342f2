package io.pkibench.workload.primitive;

import io.pkibench.keys.Services;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Security;
import java.security.spec.X509EncodedKeySpec;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/**
 * A second, independent implementation to check outputs with: BouncyCastle, or a JDK provider when
 * BouncyCastle did the work.
 */
final class Independent {
  private static final Provider BC = new BouncyCastleProvider();

  private Independent() {}

  /**
   * BouncyCastle unless it produced the output; otherwise the first installed provider other than
   * the producer that offers the service.
   */
  static Provider checkerFor(Provider producer, String type, String algorithm) {
    if (!producer.getName().equals(BC.getName()) && Services.offers(BC, type, algorithm)) return BC;
    for (Provider p : Security.getProviders()) {
      if (!p.getName().equals(producer.getName()) && Services.offers(p, type, algorithm)) return p;
    }
    throw new IllegalStateException(
        "no provider other than " + producer.getName() + " offers " + type + " " + algorithm);
  }

  /**
   * The public key re-encoded for {@code provider}, which may not accept another provider's key
   * objects.
   */
  static PublicKey publicKeyFor(PublicKey key, Provider provider) throws GeneralSecurityException {
    String algorithm = key.getAlgorithm().equals("EdDSA") ? "Ed25519" : key.getAlgorithm();
    return KeyFactory.getInstance(algorithm, provider)
        .generatePublic(new X509EncodedKeySpec(key.getEncoded()));
  }
}
