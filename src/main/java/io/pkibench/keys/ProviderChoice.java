package io.pkibench.keys;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Security;
import java.util.Arrays;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/**
 * The JCA provider software keys run through: Amazon Corretto Crypto Provider (native, fastest),
 * the JDK's own providers, or BouncyCastle. None is installed globally, so nothing changes behind
 * another library's back.
 */
public enum ProviderChoice {
  ACCP("accp"),
  JDK("jdk"),
  BC("bc");

  private static final Provider BOUNCY_CASTLE = new BouncyCastleProvider();
  public final String flag;

  ProviderChoice(String flag) {
    this.flag = flag;
  }

  public static ProviderChoice parse(String flag) {
    for (ProviderChoice c : values()) if (c.flag.equals(flag)) return c;
    throw new IllegalArgumentException(
        "--keys software:"
            + flag
            + ": unknown provider; use software:accp, software:jdk or software:bc");
  }

  /**
   * ACCP when its native library loads here, else the JDK: the default of {@code --keys software}.
   */
  public static ProviderChoice best() {
    return accpLoadFailure() == null ? ACCP : JDK;
  }

  /** Why ACCP cannot be used here, or null when it can. */
  public static Throwable accpLoadFailure() {
    try {
      AmazonCorrettoCryptoProvider accp = AmazonCorrettoCryptoProvider.INSTANCE;
      return accp.getLoadingError();
    } catch (Throwable t) {
      return t;
    }
  }

  /**
   * The provider of this choice that offers {@code type.algorithm}; throws naming a choice that
   * would.
   */
  public Provider providerFor(String type, String algorithm) throws GeneralSecurityException {
    Provider p =
        switch (this) {
          case ACCP -> {
            Throwable failure = accpLoadFailure();
            if (failure != null) {
              throw new NoSuchAlgorithmException(
                  "Amazon Corretto Crypto Provider does not load here ("
                      + failure
                      + "); use --keys software:jdk");
            }
            yield Services.offers(AmazonCorrettoCryptoProvider.INSTANCE, type, algorithm)
                ? AmazonCorrettoCryptoProvider.INSTANCE
                : null;
          }
          case BC -> Services.offers(BOUNCY_CASTLE, type, algorithm) ? BOUNCY_CASTLE : null;
          case JDK ->
              Arrays.stream(Security.getProviders())
                  .filter(
                      x ->
                          !x.getName().equals("AmazonCorrettoCryptoProvider")
                              && !x.getName().equals("BC"))
                  .filter(x -> Services.offers(x, type, algorithm))
                  .findFirst()
                  .orElse(null);
        };
    if (p == null) {
      throw new NoSuchAlgorithmException(
          "provider "
              + flag
              + " has no "
              + type
              + " "
              + algorithm
              + "; try another --keys software:PROVIDER");
    }
    return p;
  }
}
