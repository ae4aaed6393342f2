package io.pkibench.testing;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.util.List;
import java.util.Map;

/**
 * A real key source with a planted fault, for showing a per-operation check reject what it exists
 * for: every output flipped by {@link BitFlipProvider}, or each key presented with the certificate
 * chain of another key (another intermediate CA, or another PKI altogether), or one alias's key and
 * chain taken from another key source (another PKI's TSA) or signing through the flipping provider.
 */
public final class FaultyKeys implements KeySource {
  private final KeySource keys;
  private final KeySource certificates;
  private final Map<String, String> certificateOf;
  private final Provider provider;

  private FaultyKeys(
      KeySource keys,
      KeySource certificates,
      Map<String, String> certificateOf,
      Provider provider) {
    this.keys = keys;
    this.certificates = certificates;
    this.certificateOf = certificateOf;
    this.provider = provider;
  }

  /** Every signature, digest and AES-GCM ciphertext made through these keys has one bit flipped. */
  public static FaultyKeys flippingEveryOutput(KeySource keys) {
    return new FaultyKeys(keys, keys, Map.of(), new BitFlipProvider());
  }

  /** Every key signing, and every service it offers, through {@code provider} (a planted fault). */
  public static FaultyKeys through(KeySource keys, Provider provider) {
    return new FaultyKeys(keys, keys, Map.of(), provider);
  }

  /**
   * Each key's private key with the chain {@code certificates} holds under the same alias (another
   * PKI's).
   */
  public static FaultyKeys withCertificatesOf(KeySource keys, KeySource certificates) {
    return new FaultyKeys(keys, certificates, Map.of(), null);
  }

  /** The keys of {@code a} and {@code b} each presented with the other's certificate chain. */
  public static FaultyKeys swappingCertificates(KeySource keys, String a, String b) {
    return new FaultyKeys(keys, keys, Map.of(a, b, b, a), null);
  }

  /**
   * {@code alias}'s key and chain from {@code other} (e.g. another PKI's {@code tsa}); every other
   * key as {@code keys} holds it.
   */
  public static KeySource withKeyFrom(KeySource keys, String alias, KeySource other) {
    return new OneAliasReplaced(keys, alias, other::key);
  }

  /**
   * Only {@code alias} signs through {@link BitFlipProvider} (e.g. the TSA's token signatures);
   * every other key as it is.
   */
  public static KeySource flippingOutputsOf(KeySource keys, String alias) {
    return new OneAliasReplaced(keys, alias, a -> flippingEveryOutput(keys).key(a));
  }

  @Override
  public SigningKey key(String alias) throws GeneralSecurityException {
    SigningKey real = keys.key(alias);
    List<java.security.cert.X509Certificate> chain =
        certificates.key(certificateOf.getOrDefault(alias, alias)).chain();
    return new SigningKey(
        alias, real.privateKey(), chain, provider != null ? provider : real.provider());
  }

  @Override
  public Provider provider(String type, String algorithm) throws GeneralSecurityException {
    if (provider != null && provider.getService(type, algorithm) != null) return provider;
    return keys.provider(type, algorithm);
  }

  @Override
  public List<String> aliases() throws GeneralSecurityException {
    return keys.aliases();
  }

  @Override
  public String describe() {
    return "faulty:" + keys.describe();
  }

  private record OneAliasReplaced(KeySource keys, String alias, KeyLookup replacement)
      implements KeySource {
    @Override
    public SigningKey key(String a) throws GeneralSecurityException {
      return a.equals(alias) ? replacement.key(a) : keys.key(a);
    }

    @Override
    public Provider provider(String type, String algorithm) throws GeneralSecurityException {
      return keys.provider(type, algorithm);
    }

    @Override
    public List<String> aliases() throws GeneralSecurityException {
      return keys.aliases();
    }

    @Override
    public String describe() {
      return "faulty(" + alias + "):" + keys.describe();
    }
  }

  @FunctionalInterface
  private interface KeyLookup {
    SigningKey key(String alias) throws GeneralSecurityException;
  }
}
