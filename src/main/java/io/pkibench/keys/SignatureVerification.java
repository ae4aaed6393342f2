package io.pkibench.keys;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;

/**
 * Checks a signature as a server does, with the fastest provider here (ACCP when it loads, else the
 * JDK): the JDK's RSA verification was 5% of the signing service's CPU per CAdES.
 */
public final class SignatureVerification {
  private static final ProviderChoice FASTEST = ProviderChoice.best();

  private SignatureVerification() {}

  /**
   * Returns only when {@code signature} over {@code data} verifies with {@code key}; throws {@link
   * SignatureException} otherwise.
   */
  public static void verify(String algorithm, PublicKey key, byte[] data, byte[] signature)
      throws GeneralSecurityException {
    Signature verify;
    try {
      verify = Signature.getInstance(algorithm, FASTEST.providerFor("Signature", algorithm));
    } catch (NoSuchAlgorithmException notThere) {
      verify =
          Signature.getInstance(algorithm); // an algorithm ACCP lacks: whichever provider has it
    }
    verify.initVerify(key);
    verify.update(data);
    // A check that throws cannot be ignored the way a returned false can (Tink's rule).
    if (!verify.verify(signature))
      throw new SignatureException(
          "the " + algorithm + " signature does not verify with the given key");
  }
}
