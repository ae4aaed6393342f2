package io.pkibench.workload.primitive;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.KeyAlgorithm;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;

/**
 * Public keys for the verifiers: the certificate's key made inside the verifying provider, or a key
 * of another parameter set.
 */
final class PostQuantumKeys {
  private PostQuantumKeys() {}

  /**
   * The certificate's public key; for ML-DSA and SLH-DSA re-made inside {@code provider} from its
   * encoding, as the JDK's certificate parser gives SLH-DSA keys (which it lacks) as opaque keys no
   * provider takes.
   */
  static PublicKey publicKeyIn(SigningKey key, KeyAlgorithm algorithm, Provider provider)
      throws GeneralSecurityException {
    if (!algorithm.isPostQuantum()) return key.publicKey();
    return KeyFactory.getInstance(algorithm.signatureAlgorithm, provider)
        .generatePublic(new X509EncodedKeySpec(key.publicKey().getEncoded()));
  }

  /**
   * A fresh public key of another parameter set (ML-DSA-44 for 65, 128f for 128s) or, for the
   * classical ones, another size or curve.
   */
  static PublicKey otherParameterSet(KeyAlgorithm algorithm, Provider provider)
      throws GeneralSecurityException {
    KeyAlgorithm other =
        switch (algorithm) {
          case ML_DSA_44 -> KeyAlgorithm.ML_DSA_65;
          case ML_DSA_65, ML_DSA_87 -> KeyAlgorithm.ML_DSA_44;
          case SLH_DSA_SHA2_128S -> KeyAlgorithm.SLH_DSA_SHA2_128F;
          case SLH_DSA_SHA2_128F -> KeyAlgorithm.SLH_DSA_SHA2_128S;
          case RSA2048 -> KeyAlgorithm.RSA3072;
          default -> KeyAlgorithm.RSA2048;
        };
    // ECDSA and Ed25519 have no other set here: an RSA key makes initVerify refuse, which is the
    // counted failure wanted
    if (!other.isPostQuantum() && other.isRsa() && !algorithm.isRsa()) {
      throw new InvalidKeyException(
          algorithm.flag
              + " has no other parameter set; -p input=other-set is for ml-dsa, slh-dsa and rsa");
    }
    return other.generate(provider).getPublic();
  }
}
