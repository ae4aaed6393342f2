package io.pkibench.formats.tls;

import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslPrivateKeyMethod;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SingleKeyManager;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.Security;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * What a TLS client trusts and presents, on which engine, offering which versions and suites: the
 * one place a client {@link SslContext} is built, for every TLS workload (RR, ACRR, Stream,
 * handshakes over sockets, HTTPS). {@code identity} null presents no certificate.
 *
 * <p>Where the identity's key lives decides how it signs. JSSE signs CertificateVerify through the
 * key's own JCA provider (PKCS#11, the remote key server). BoringSSL takes a key it can read as
 * bytes and signs natively; a key it cannot read (a token's, a key server's) is signed through the
 * key's provider by a private-key method BoringSSL calls back, so every such signature happens on
 * the key source, as with JSSE.
 *
 * <p>An Ed25519 key on BoringSSL goes through {@link ChainOnly} too: netty names the client key
 * types it will take from the server's certificate types (RSA, EC), which have no EdDSA, so its own
 * key manager never picks an Ed25519 certificate and the client sends none. ECDSA's certificate
 * type stands for EdDSA as well (RFC 8422, section 5.5), so ChainOnly takes "EC" for an EdDSA key;
 * BoringSSL then signs Ed25519 when the server offers it.
 */
public record TlsClient(
    TlsEngine engine,
    List<X509Certificate> trusted,
    SigningKey identity,
    List<String> protocols,
    List<String> suites,
    List<String> groups) {
  public TlsClient {
    trusted = List.copyOf(trusted);
    protocols = List.copyOf(protocols);
    suites = List.copyOf(suites);
    groups = groups == null ? List.of() : List.copyOf(groups);
    if (trusted.isEmpty())
      throw new IllegalArgumentException("a TLS client needs at least one trusted certificate");
  }

  /**
   * No hostname check: the target is named by address, and the trust bundle is what is being
   * authenticated.
   */
  public SslContext context() throws SSLException {
    SslContextBuilder b =
        SslContextBuilder.forClient()
            .sslProvider(engine.provider())
            .trustManager(trusted)
            .endpointIdentificationAlgorithm(null);
    if (identity != null) {
      if (engine == TlsEngine.JSSE) {
        // JSSE finds the signer for CertificateVerify among the installed providers only: a token's
        // provider
        // (SunPKCS11 configured for it) must be installed, last, where it takes only its own keys
        // (the remote one installs itself).
        if (Security.getProvider(identity.provider().getName()) == null)
          Security.addProvider(identity.provider());
        b.keyManager(new SingleKeyManager(identity));
      } else if (readableAsBytes(identity.privateKey())
          && !SingleKeyManager.isEdDsa(identity.privateKey().getAlgorithm())) {
        b.keyManager(identity.privateKey(), identity.chain());
      } else if (readableAsBytes(identity.privateKey())) {
        b.keyManager(new ChainOnly(identity, true));
      } else {
        b.keyManager(new ChainOnly(identity, false));
        b.option(OpenSslContextOption.PRIVATE_KEY_METHOD, new SignOnKeySource(identity));
      }
    }
    // netty leaves BoringSSL's client at TLS 1.2 when no suite list names a TLS 1.3 suite, and the
    // hybrid groups are TLS 1.3's
    // only: with groups asked for, offer the forward-secret list, which keeps 1.3 on, as the
    // server's default does
    List<String> offered =
        engine == TlsEngine.OPENSSL && suites.isEmpty() && !groups.isEmpty()
            ? engine.forwardSecretSuites()
            : suites;
    return KeyExchangeGroups.apply(engine.restrict(b, protocols, offered), engine, groups).build();
  }

  /**
   * Why {@code engine} cannot present {@code identity}, or null. JSSE takes a client key only when
   * its algorithm name is the one it asks for, "EdDSA" for Edwards keys, as the JDK's own keys are
   * named; a key server's Ed25519 key names its curve, so JSSE would send no certificate and every
   * handshake would fail at the server.
   */
  public static String identityProblem(TlsEngine engine, SigningKey identity) {
    String algorithm = identity.privateKey().getAlgorithm();
    if (engine == TlsEngine.JSSE
        && SingleKeyManager.isEdDsa(algorithm)
        && !algorithm.equals("EdDSA")) {
      return "the jsse engine cannot present the "
          + algorithm
          + " key "
          + identity.alias()
          + ": JSSE takes Edwards keys only as"
          + " the JDK names them (EdDSA); use -p engine=openssl (BoringSSL signs it through the key source), or an ECDSA or RSA client key";
    }
    return null;
  }

  /**
   * Whether the identity's key is signed through the key source (true) or by the engine itself from
   * its bytes.
   */
  public boolean signsOnKeySource() {
    return identity != null
        && (engine == TlsEngine.JSSE || !readableAsBytes(identity.privateKey()));
  }

  private static boolean readableAsBytes(PrivateKey key) {
    return "PKCS#8".equals(key.getFormat()) && key.getEncoded() != null;
  }

  /**
   * The client's certificate chain for BoringSSL, with its key when BoringSSL can read it ({@code
   * withKey}); without, BoringSSL asks the {@link SignOnKeySource} for each signature. An EdDSA key
   * answers netty's "EC" (see above).
   */
  private static final class ChainOnly extends X509ExtendedKeyManager {
    private final SingleKeyManager chooser;
    private final SigningKey key;
    private final boolean withKey;

    ChainOnly(SigningKey key, boolean withKey) {
      this.key = key;
      this.withKey = withKey;
      this.chooser = new SingleKeyManager(key);
    }

    /**
     * netty's key types with "EdDSA" added where it offers ECDSA's certificate type, for an EdDSA
     * key.
     */
    private String[] widened(String[] keyTypes) {
      if (keyTypes == null || !SingleKeyManager.isEdDsa(key.privateKey().getAlgorithm()))
        return keyTypes;
      return Arrays.asList(keyTypes).contains("EC")
          ? Stream.concat(Arrays.stream(keyTypes), Stream.of(key.privateKey().getAlgorithm()))
              .toArray(String[]::new)
          : keyTypes;
    }

    @Override
    public String chooseEngineClientAlias(
        String[] keyTypes, Principal[] issuers, SSLEngine engine) {
      return chooser.chooseEngineClientAlias(widened(keyTypes), issuers, engine);
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
      return chooser.chooseClientAlias(widened(keyTypes), issuers, socket);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return chooser.getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return chooser.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return withKey
          ? chooser.getPrivateKey(alias)
          : null; // else held by the key source: signed through SignOnKeySource
    }

    @Override
    public String toString() {
      return "ChainOnly[" + key.alias() + "]";
    }
  }

  /**
   * BoringSSL's signing callback, answered by the key's JCA provider (a key-server call, a token
   * operation).
   */
  static final class SignOnKeySource implements OpenSslPrivateKeyMethod {
    private final SigningKey key;

    SignOnKeySource(SigningKey key) {
      this.key = key;
    }

    @Override
    public byte[] sign(SSLEngine engine, int algorithm, byte[] input) throws Exception {
      Signature s = signature(algorithm);
      s.initSign(key.privateKey());
      s.update(input);
      return s.sign();
    }

    /**
     * BoringSSL's scheme numbers are not compile-time constants in netty, hence a lookup rather
     * than a switch.
     */
    private Signature signature(int algorithm) throws Exception {
      if (algorithm == SSL_SIGN_RSA_PKCS1_SHA256)
        return Signature.getInstance("SHA256withRSA", key.provider());
      if (algorithm == SSL_SIGN_RSA_PKCS1_SHA384)
        return Signature.getInstance("SHA384withRSA", key.provider());
      if (algorithm == SSL_SIGN_RSA_PKCS1_SHA512)
        return Signature.getInstance("SHA512withRSA", key.provider());
      if (algorithm == SSL_SIGN_ECDSA_SECP256R1_SHA256)
        return Signature.getInstance("SHA256withECDSA", key.provider());
      if (algorithm == SSL_SIGN_ECDSA_SECP384R1_SHA384)
        return Signature.getInstance("SHA384withECDSA", key.provider());
      if (algorithm == SSL_SIGN_ECDSA_SECP521R1_SHA512)
        return Signature.getInstance("SHA512withECDSA", key.provider());
      if (algorithm == SSL_SIGN_RSA_PSS_RSAE_SHA256) return pss("SHA-256", 32);
      if (algorithm == SSL_SIGN_RSA_PSS_RSAE_SHA384) return pss("SHA-384", 48);
      if (algorithm == SSL_SIGN_RSA_PSS_RSAE_SHA512) return pss("SHA-512", 64);
      if (algorithm == SSL_SIGN_ED25519) return Signature.getInstance("Ed25519", key.provider());
      throw new SSLException(
          "the client key "
              + key.alias()
              + " cannot make TLS signature scheme 0x"
              + Integer.toHexString(algorithm)
              + " through "
              + key.provider().getName());
    }

    private Signature pss(String digest, int saltBytes) throws Exception {
      Signature s = Signature.getInstance("RSASSA-PSS", key.provider());
      s.setParameter(
          new PSSParameterSpec(
              digest,
              "MGF1",
              new MGF1ParameterSpec(digest),
              saltBytes,
              PSSParameterSpec.TRAILER_FIELD_BC));
      return s;
    }

    @Override
    public byte[] decrypt(SSLEngine engine, byte[] input) throws Exception {
      throw new SSLException(
          "a TLS client never decrypts with its key (RSA key exchange decrypts on the server)");
    }
  }
}
