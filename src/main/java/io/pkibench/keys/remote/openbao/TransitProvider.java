package io.pkibench.keys.remote.openbao;

import java.security.Provider;
import java.util.List;
import java.util.Map;

/**
 * The JCA provider of the {@code openbao:} key source: {@code Signature} over {@link TransitKey}
 * handles, each a call to transit's sign: RSA PKCS#1 v1.5 and PSS ({@code SHA256withRSA/PSS}, also
 * named {@code SHA256withRSAandMGF1} as BouncyCastle names it, and {@code RSASSA-PSS} with its
 * parameters, as TLS asks), ECDSA and Ed25519. Its services declare {@code SupportedKeyClasses}, so
 * where code asks the installed providers without naming one (JSSE), only this one takes a transit
 * key.
 */
public final class TransitProvider extends Provider {
  public static final String NAME = "pkibench-openbao";

  public TransitProvider() {
    super(NAME, "1", "pkibench: signatures by OpenBao's transit engine (openbao: key source)");
    Map<String, String> keyClasses = Map.of("SupportedKeyClasses", TransitKey.class.getName());
    for (String digest : List.of("SHA-256", "SHA-384", "SHA-512")) {
      String prefix = digest.replace("-", "");
      putService(new SignatureService(this, prefix + "withRSA", digest, keyClasses));
      putService(new SignatureService(this, prefix + "withRSA/PSS", digest, keyClasses));
      putService(new SignatureService(this, prefix + "withECDSA", digest, keyClasses));
    }
    putService(new SignatureService(this, "Ed25519", null, keyClasses));
    // TLS 1.3's CertificateVerify (and JSSE's TLS 1.2 where PSS is offered): "RSASSA-PSS", its
    // hash given afterwards as a PSSParameterSpec
    putService(new SignatureService(this, TransitSignature.RSASSA_PSS, null, keyClasses));
    // a caller that hashed already (the key server, given a client's digest): NONEwithRSA takes
    // the DigestInfo, NONEwithECDSA the digest; transit signs either prehashed
    putService(new SignatureService(this, "NONEwithRSA", null, keyClasses));
    putService(new SignatureService(this, "NONEwithECDSA", null, keyClasses));
  }

  private static final class SignatureService extends Service {
    private final String digest;

    SignatureService(Provider provider, String name, String digest, Map<String, String> attrs) {
      super(
          provider,
          "Signature",
          name,
          TransitSignature.class.getName(),
          name.equals("Ed25519")
              ? List.of("EdDSA")
              : name.endsWith("/PSS") ? List.of(name.replace("/PSS", "andMGF1")) : List.of(),
          attrs);
      this.digest = digest;
    }

    @Override
    public Object newInstance(Object parameter) {
      return new TransitSignature(getAlgorithm(), digest);
    }
  }
}
