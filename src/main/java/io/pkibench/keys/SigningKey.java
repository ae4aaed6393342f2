package io.pkibench.keys;

import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A private key with its certificate chain (leaf first) and the JCA provider that operates it.
 * Workloads sign through {@code provider} and never learn where the key lives.
 */
public record SigningKey(
    String alias, PrivateKey privateKey, List<X509Certificate> chain, Provider provider) {
  public SigningKey {
    chain = List.copyOf(chain);
    if (chain.isEmpty()) throw new IllegalArgumentException("key " + alias + " has no certificate");
  }

  public X509Certificate certificate() {
    return chain.get(0);
  }

  public PublicKey publicKey() {
    return certificate().getPublicKey();
  }

  /** Never prints key material. */
  @Override
  public String toString() {
    return "SigningKey["
        + alias
        + ", "
        + certificate().getSubjectX500Principal().getName()
        + ", via "
        + provider.getName()
        + "]";
  }
}
