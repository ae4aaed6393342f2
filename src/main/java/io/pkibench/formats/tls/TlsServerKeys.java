package io.pkibench.formats.tls;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import java.security.GeneralSecurityException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The test PKI's TLS server identities by key type, as {@code serve tlsecho --key} names them. */
public final class TlsServerKeys {
  /** Key flag → alias, in the order the help lists them. */
  public static final Map<String, String> ALIASES = orderedAliases();

  private TlsServerKeys() {}

  private static Map<String, String> orderedAliases() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("rsa1024", "tls-server-rsa1024");
    m.put("rsa2048", "tls-server");
    m.put("ecdsa-p256", "tls-server-ecdsa-p256");
    return Collections.unmodifiableMap(m);
  }

  /**
   * The identity for {@code keyFlag}, read from the PKI file through the JDK: the server's key is
   * not what is being sized here, its handshakes are.
   */
  public static SigningKey of(TestPki pki, String keyFlag) throws GeneralSecurityException {
    String alias = ALIASES.get(keyFlag);
    if (alias == null)
      throw new IllegalArgumentException(
          "no TLS server key '" + keyFlag + "'; use " + String.join(", ", ALIASES.keySet()));
    if (pki.entities().stream().noneMatch(e -> e.alias().equals(alias))) {
      throw new IllegalArgumentException(
          "the test PKI in "
              + pki.dir()
              + " predates the "
              + keyFlag
              + " TLS server key ("
              + alias
              + "); re-create it (move the directory away, then: pkibench pki init --dir "
              + pki.dir()
              + ")");
    }
    return new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key(alias);
  }
}
