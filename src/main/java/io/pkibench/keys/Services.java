package io.pkibench.keys;

import java.security.GeneralSecurityException;
import java.security.Provider;
import javax.crypto.Cipher;

/** Whether a provider offers a service, as JCA itself would find it. */
public final class Services {
  private Services() {}

  /**
   * Ciphers are asked for as transformations ({@code AES/GCM/NoPadding}) that a provider may
   * register only as their algorithm ({@code AES}) and parse itself, as BouncyCastle does; so for
   * ciphers ask JCA, for the rest the service table.
   */
  public static boolean offers(Provider provider, String type, String algorithm) {
    if (!type.equals("Cipher")) return provider.getService(type, algorithm) != null;
    try {
      Cipher.getInstance(algorithm, provider);
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
