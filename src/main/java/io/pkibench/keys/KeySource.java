package io.pkibench.keys;

import java.security.GeneralSecurityException;
import java.security.Provider;
import java.time.Duration;
import java.util.List;

/** Where private keys live: a PKCS#12 file, a PKCS#11 token, a remote key-server cluster. */
public interface KeySource extends AutoCloseable {

  SigningKey key(String alias) throws GeneralSecurityException;

  /**
   * The provider this source uses for a keyless service ({@code MessageDigest}/{@code SHA-256},
   * {@code Cipher}/{@code AES/GCM/NoPadding}...), so that digests, ciphers and key generation run
   * where the keys do; throws naming the service when this source has none.
   */
  Provider provider(String type, String algorithm) throws GeneralSecurityException;

  /**
   * The aliases of the private keys this source holds, in a stable order (a key server lists and
   * serves them).
   */
  List<String> aliases() throws GeneralSecurityException;

  /**
   * The key-server nodes behind this source and each one's calls so far; empty for sources that
   * hold their keys.
   */
  default List<KeyNodeTally> nodes() {
    return List.of();
  }

  /**
   * Waits, at most {@code within}, until every key-server node behind this source answers again
   * (after a study restarted them between levels); returns the nodes still down, each with why.
   * Sources that hold their keys have none to wait for.
   */
  default List<String> awaitNodesUp(Duration within) throws InterruptedException {
    return List.of();
  }

  /**
   * How the result file names this source, e.g. {@code software:accp} or {@code
   * pkcs11:softhsm.cfg}.
   */
  String describe();

  @Override
  default void close() {}
}
