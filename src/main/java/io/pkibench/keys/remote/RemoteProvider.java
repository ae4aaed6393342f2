package io.pkibench.keys.remote;

import io.pkibench.keyserver.protocol.HashAlgorithm;
import io.pkibench.keyserver.protocol.Hashes;
import io.pkibench.keyserver.protocol.Padding;
import io.pkibench.keyserver.protocol.SignatureScheme;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.util.List;
import java.util.Map;

/**
 * The JCA provider of the {@code remote:} key source: {@code Signature} and {@code Cipher} over
 * {@link RemoteKey} handles. Its services declare {@code SupportedKeyClasses}, so where code asks
 * the installed providers without naming one (JSSE's handshake signature), only this one takes a
 * remote key and every other key goes elsewhere.
 */
public final class RemoteProvider extends Provider {
  public static final String NAME = "pkibench-remote";

  public RemoteProvider() {
    super(
        NAME, "1", "pkibench: private-key operations on a key-server cluster (remote: key source)");
    Map<String, String> keyClasses = Map.of("SupportedKeyClasses", RemoteKey.class.getName());
    for (HashAlgorithm h :
        List.of(
            HashAlgorithm.SHA_1,
            HashAlgorithm.SHA_256,
            HashAlgorithm.SHA_384,
            HashAlgorithm.SHA_512)) {
      String prefix = Hashes.signaturePrefix(h);
      putService(
          new SignatureService(
              this, prefix + "withRSA", SignatureScheme.RSA_PKCS1_V1_5, h, keyClasses));
      putService(
          new SignatureService(this, prefix + "withECDSA", SignatureScheme.ECDSA, h, keyClasses));
    }
    putService(new SignatureService(this, "RSASSA-PSS", SignatureScheme.RSA_PSS, null, keyClasses));
    putService(new SignatureService(this, "Ed25519", SignatureScheme.ED25519, null, keyClasses));
    putService(new SignatureService(this, "ML-DSA", SignatureScheme.ML_DSA, null, keyClasses));
    Map<String, String> cipherAttributes =
        Map.of(
            "SupportedKeyClasses",
            RemoteKey.class.getName(),
            "SupportedModes",
            "ECB",
            "SupportedPaddings",
            "PKCS1PADDING|OAEPPADDING");
    putService(
        new Service(
            this, "Cipher", "RSA", RemoteRsaCipher.class.getName(), List.of(), cipherAttributes) {
          @Override
          public Object newInstance(Object parameter) {
            return new RemoteRsaCipher(Padding.PKCS1_V1_5);
          }
        });
  }

  private static final class SignatureService extends Service {
    private final SignatureScheme scheme;
    private final HashAlgorithm hash;

    SignatureService(
        Provider provider,
        String name,
        SignatureScheme scheme,
        HashAlgorithm hash,
        Map<String, String> attributes) {
      super(
          provider,
          "Signature",
          name,
          RemoteSignature.class.getName(),
          name.equals("Ed25519") ? List.of("EdDSA") : List.of(),
          attributes);
      this.scheme = scheme;
      this.hash = hash;
    }

    @Override
    public Object newInstance(Object parameter) throws NoSuchAlgorithmException {
      return new RemoteSignature(scheme, hash, getAlgorithm());
    }
  }
}
