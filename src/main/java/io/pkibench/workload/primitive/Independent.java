package io.pkibench.workload.primitive;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Security;
import java.security.spec.X509EncodedKeySpec;
import io.pkibench.keys.Services;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/** A second, independent implementation to check outputs with: BouncyCastle, or the JDK when BouncyCastle did the work. */
final class Independent {
  private static final Provider BC = new BouncyCastleProvider();

  private Independent() {}

  static Provider checkerFor(Provider producer) {
    return producer.getName().equals(BC.getName()) ? jdk() : BC;
  }

  private static Provider jdk() {
    return Security.getProvider("SunRsaSign");
  }

  /** The JDK splits algorithms over several providers; pick the one that has this service. */
  static Provider checkerFor(Provider producer, String type, String algorithm) {
    Provider checker = checkerFor(producer);
    if (Services.offers(checker, type, algorithm)) return checker;
    for (Provider p : Security.getProviders()) {
      if (!p.getName().equals(producer.getName()) && Services.offers(p, type, algorithm)) return p;
    }
    throw new IllegalStateException("no provider other than " + producer.getName() + " offers " + type + " " + algorithm);
  }

  /** The public key re-encoded for {@code provider}, which may not accept another provider's key objects. */
  static PublicKey publicKeyFor(PublicKey key, Provider provider) throws GeneralSecurityException {
    String algorithm = key.getAlgorithm().equals("EdDSA") ? "Ed25519" : key.getAlgorithm();
    return KeyFactory.getInstance(algorithm, provider).generatePublic(new X509EncodedKeySpec(key.getEncoded()));
  }
}
