package io.pkibench.keys;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.Signature;

/**
 * Checks a signature as a server does, with the fastest provider here (ACCP when it loads, else the
 * JDK): the JDK's RSA verification was 5% of the signing service's CPU per CAdES.
 */
public final class SignatureVerification {
  private static final ProviderChoice FASTEST = ProviderChoice.best();

  private SignatureVerification() {}

  public static boolean verifies(String algorithm, PublicKey key, byte[] data, byte[] signature) throws GeneralSecurityException {
    Signature verify;
    try {
      verify = Signature.getInstance(algorithm, FASTEST.providerFor("Signature", algorithm));
    } catch (NoSuchAlgorithmException notThere) {
      verify = Signature.getInstance(algorithm); // an algorithm ACCP lacks: whichever provider has it
    }
    verify.initVerify(key);
    verify.update(data);
    return verify.verify(signature);
  }
}
