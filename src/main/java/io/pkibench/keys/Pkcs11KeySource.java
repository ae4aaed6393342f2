package io.pkibench.keys;

import io.pkibench.pki.Entity;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AuthProvider;
import java.security.GeneralSecurityException;
import java.security.InvalidParameterException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.ProviderException;
import java.security.Security;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Keys inside a PKCS#11 token (SoftHSM2 in tests, any HSM in real use) through the JDK's SunPKCS11.
 * SunPKCS11 lists only private keys that have a certificate, which {@code pki init --pkcs11}
 * writes. A config whose library is p11-kit's client module reaches a token served by {@code
 * p11-kit server} (remote PKCS#11); its errors then name the server's socket.
 */
public final class Pkcs11KeySource implements KeySource {
  private final Path config;
  private final Provider provider;
  private final KeyStore store;

  /** The p11-kit server the token is reached through, or null for a module loaded here. */
  private final P11KitAddress remote;

  /**
   * A token whose module reads no environment of ours (a p11-kit client config gets the default).
   */
  public Pkcs11KeySource(Path config, Secret pin) throws GeneralSecurityException {
    this(config, pin, Map.of());
  }

  /**
   * {@code env}: the environment this JVM started with, where p11-kit-client.so read its server's
   * address.
   */
  public Pkcs11KeySource(Path config, Secret pin, Map<String, String> env)
      throws GeneralSecurityException {
    String flag = "--keys pkcs11:" + config;
    if (!Files.isReadable(config)) {
      throw new GeneralSecurityException(
          flag + ": no such file; write a SunPKCS11 config (name, library, slot) there");
    }
    this.config = config;
    this.remote = p11KitServer(config, env, flag);
    String through = remote == null ? "" : " through the p11-kit server at " + remote;
    try {
      this.provider = Security.getProvider("SunPKCS11").configure(config.toString());
    } catch (ProviderException | InvalidParameterException e) {
      if (remote != null) {
        // p11-kit-client.so answers "no slots" rather than an error when it reaches no server.
        throw new GeneralSecurityException(
            flag
                + ": p11-kit-client.so reached no token"
                + through
                + ": the server is gone or serves no token ("
                + rootMessage(e)
                + "); check 'p11-kit server' is running there",
            e);
      }
      throw new GeneralSecurityException(
          flag + ": the token cannot be opened: " + rootMessage(e), e);
    }
    this.store = KeyStore.getInstance("PKCS11", provider);
    try {
      store.load(null, pin.chars());
    } catch (IOException e) {
      throw new GeneralSecurityException(
          flag
              + ": login failed"
              + through
              + " ("
              + rootMessage(e)
              + "); check the PIN in --pin-file or PKIBENCH_PKCS11_PIN",
          e);
    }
  }

  /**
   * The p11-kit server a config of p11-kit's client module reaches, its socket checked before the
   * module loads; null when the config names another library.
   */
  private static P11KitAddress p11KitServer(Path config, Map<String, String> env, String flag)
      throws GeneralSecurityException {
    try {
      if (!P11KitAddress.isClientConfig(config)) return null;
    } catch (IOException e) {
      throw new GeneralSecurityException(flag + ": cannot read it (" + e.getMessage() + ")", e);
    }
    P11KitAddress address;
    try {
      address =
          P11KitAddress.of(env)
              .orElseThrow(
                  () ->
                      new GeneralSecurityException(
                          flag
                              + ": its library is "
                              + P11KitAddress.CLIENT_LIBRARY
                              + ", and neither "
                              + P11KitAddress.ENV
                              + " nor XDG_RUNTIME_DIR says where its p11-kit server is; give"
                              + " --keys pkcs11:"
                              + config
                              + ",remote=unix:path=SOCKET"));
    } catch (IllegalArgumentException e) {
      throw new GeneralSecurityException(flag + ": " + e.getMessage(), e);
    }
    if (!Files.exists(address.socket())) {
      throw new GeneralSecurityException(
          flag
              + ": no p11-kit server at "
              + address
              + " (no socket there); start one with 'p11-kit server --provider MODULE.so"
              + " \"pkcs11:token=LABEL\"' and give the address it prints in ,remote= or "
              + P11KitAddress.ENV);
    }
    return address;
  }

  private static String rootMessage(Throwable t) {
    while (t.getCause() != null) t = t.getCause();
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  public KeyStore store() {
    return store;
  }

  public Provider jcaProvider() {
    return provider;
  }

  @Override
  public SigningKey key(String alias) throws GeneralSecurityException {
    PrivateKey key = (PrivateKey) store.getKey(alias, null);
    if (key == null) {
      throw new UnrecoverableKeyException(
          "the token has no key '"
              + alias
              + "' with a certificate; put the test PKI in it with 'pkibench pki init --pkcs11 "
              + config
              + "'");
    }
    List<X509Certificate> chain = new ArrayList<>();
    for (Certificate c : store.getCertificateChain(alias)) chain.add((X509Certificate) c);
    return new SigningKey(alias, key, chain, provider);
  }

  /** The token's private keys that have a certificate. */
  @Override
  public List<String> aliases() throws GeneralSecurityException {
    List<String> aliases = new ArrayList<>();
    for (String alias : Collections.list(store.aliases())) {
      if (store.isKeyEntry(alias) && store.getCertificate(alias) != null) aliases.add(alias);
    }
    Collections.sort(aliases);
    return aliases;
  }

  @Override
  public Provider provider(String type, String algorithm) throws GeneralSecurityException {
    if (!Services.offers(provider, type, algorithm)) {
      throw new NoSuchAlgorithmException("the PKCS#11 token offers no " + type + " " + algorithm);
    }
    return provider;
  }

  /**
   * Copies the test PKI's end-entity keys, each with its certificate chain, into the token, so that
   * SunPKCS11 lists them. Keys already there are left alone; a key the token refuses is reported,
   * not hidden.
   */
  public int importFrom(TestPki pki, Consumer<String> log) throws GeneralSecurityException {
    SoftwareKeySource software = new SoftwareKeySource(() -> pki, ProviderChoice.JDK);
    int imported = 0;
    for (Entity e : pki.entities()) {
      if (e.isCa()) continue;
      if (store.containsAlias(e.alias())) {
        log.accept("  " + e.alias() + ": already in the token");
        continue;
      }
      if (e.keyAlgorithm().isPostQuantum()) {
        log.accept(
            "  "
                + e.alias()
                + ": NOT imported, SunPKCS11 has no "
                + e.keyAlgorithm().flag
                + " keys (PKCS#11 3.2 defines them; no token here has them)");
        continue;
      }
      SigningKey key = software.key(e.alias());
      try {
        store.setKeyEntry(
            e.alias(), key.privateKey(), null, key.chain().toArray(new X509Certificate[0]));
        imported++;
      } catch (KeyStoreException | ProviderException refused) {
        log.accept(
            "  "
                + e.alias()
                + ": NOT imported, the token refuses "
                + e.keyAlgorithm().flag
                + " keys ("
                + rootMessage(refused)
                + ")");
      }
    }
    return imported;
  }

  @Override
  public String describe() {
    return "pkcs11:" + config + (remote == null ? "" : ",remote=" + remote);
  }

  @Override
  public void close() {
    try {
      if (provider instanceof AuthProvider auth) auth.logout();
    } catch (Exception e) {
      // logging out of a token that is already gone is not worth failing a finished run for
    }
  }
}
