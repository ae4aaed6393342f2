package io.pkibench.keys;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Presents one {@link SigningKey} in a TLS handshake, wherever the key lives: JSSE signs the
 * handshake through whichever installed provider takes the key (the PKCS#11 or remote provider for
 * keys no KeyStore file can hold).
 */
public final class SingleKeyManager extends X509ExtendedKeyManager {
  private final SigningKey key;

  public SingleKeyManager(SigningKey key) {
    this.key = key;
  }

  private boolean fits(String keyType) {
    String algorithm = key.privateKey().getAlgorithm();
    // TLS 1.3 asks for "RSASSA-PSS" certificates too; an rsaEncryption certificate signs
    // rsa_pss_rsae_* as well
    return keyType.equals(algorithm)
        || (algorithm.equals("RSA") && keyType.equals("RSASSA-PSS"))
        || (algorithm.equals("EC") && keyType.startsWith("EC"))
        || (isEdDsa(algorithm) && isEdDsa(keyType));
  }

  /**
   * JSSE asks for "EdDSA"; a key may call itself that or by its curve (the remote provider's,
   * ACCP's "Ed25519").
   */
  public static boolean isEdDsa(String algorithm) {
    return algorithm.equals("EdDSA") || algorithm.equals("Ed25519") || algorithm.equals("Ed448");
  }

  private String choose(String[] keyTypes) {
    return keyTypes != null && Arrays.stream(keyTypes).anyMatch(this::fits) ? key.alias() : null;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    return choose(keyTypes);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return choose(new String[] {keyType});
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    return choose(keyTypes);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return choose(new String[] {keyType});
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return fits(keyType) ? new String[] {key.alias()} : null;
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return getClientAliases(keyType, issuers);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return key.alias().equals(alias) ? key.chain().toArray(new X509Certificate[0]) : null;
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return key.alias().equals(alias) ? key.privateKey() : null;
  }
}
