package io.pkibench.keys.remote;

import com.google.protobuf.ByteString;
import io.pkibench.keyserver.protocol.HashAlgorithm;
import io.pkibench.keyserver.protocol.Hashes;
import io.pkibench.keyserver.protocol.SignRequest;
import io.pkibench.keyserver.protocol.SignatureScheme;
import java.io.ByteArrayOutputStream;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.InvalidParameterException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;

/**
 * {@code Signature} over a {@link RemoteKey}. RSASSA-PKCS1-v1_5 and ECDSA hash here and send the
 * digest (a few dozen bytes whatever the message); RSASSA-PSS and Ed25519 send the message, as the
 * contract asks. Verification needs no private key and runs locally through the installed
 * providers.
 */
public final class RemoteSignature extends SignatureSpi {
  private final SignatureScheme scheme;
  private final String jcaName;
  private HashAlgorithm hash;
  private MessageDigest digest;
  private ByteArrayOutputStream data;
  private RemoteKey key;
  private Signature verifier;

  RemoteSignature(SignatureScheme scheme, HashAlgorithm hash, String jcaName) {
    this.scheme = scheme;
    this.hash = hash;
    this.jcaName = jcaName;
  }

  @Override
  protected void engineInitSign(PrivateKey privateKey) throws InvalidKeyException {
    if (!(privateKey instanceof RemoteKey remote))
      throw new InvalidKeyException(
          "the pkibench-remote provider signs only with keys of a remote: key source");
    boolean fits =
        switch (scheme) {
          case RSA_PKCS1_V1_5, RSA_PSS -> remote instanceof RemoteKey.Rsa;
          case ECDSA -> remote instanceof RemoteKey.Ec;
          case ED25519 -> remote instanceof RemoteKey.Ed;
          case ML_DSA -> remote instanceof RemoteKey.MlDsa;
          default -> false;
        };
    if (!fits) throw new InvalidKeyException(jcaName + " cannot use " + remote);
    key = remote;
    verifier = null;
    reset();
  }

  @Override
  protected void engineInitVerify(PublicKey publicKey) throws InvalidKeyException {
    try {
      verifier = Signature.getInstance(jcaName);
      verifier.initVerify(publicKey);
      if (pssParameters != null) verifier.setParameter(pssParameters);
      key = null;
    } catch (NoSuchAlgorithmException | InvalidAlgorithmParameterException e) {
      throw new InvalidKeyException(
          "no installed provider verifies " + jcaName + ": " + e.getMessage(), e);
    }
  }

  /**
   * Ready for the next message: the digest is reused (made anew only for another hash), not looked
   * up per signature.
   */
  private void reset() {
    if (sendsDigest()) {
      if (digest != null && digest.getAlgorithm().equals(Hashes.jcaName(hash))) {
        digest.reset();
        return;
      }
      try {
        digest = MessageDigest.getInstance(Hashes.jcaName(hash));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    } else {
      data = new ByteArrayOutputStream();
    }
  }

  private boolean sendsDigest() {
    return scheme == SignatureScheme.RSA_PKCS1_V1_5 || scheme == SignatureScheme.ECDSA;
  }

  @Override
  protected void engineUpdate(byte b) throws SignatureException {
    engineUpdate(new byte[] {b}, 0, 1);
  }

  @Override
  protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
    if (verifier != null) {
      verifier.update(b, off, len);
    } else if (key == null) {
      throw new SignatureException("initialise the signature first");
    } else if (sendsDigest()) {
      digest.update(b, off, len);
    } else {
      data.write(b, off, len);
    }
  }

  @Override
  protected byte[] engineSign() throws SignatureException {
    if (key == null) throw new SignatureException("initialise the signature for signing first");
    if (scheme == SignatureScheme.RSA_PSS && hash == null) {
      throw new SignatureException(
          pssParameters == null
              ? "RSASSA-PSS needs its PSSParameterSpec"
              : unsignable(pssParameters));
    }
    SignRequest.Builder request = SignRequest.newBuilder().setAlias(key.alias()).setScheme(scheme);
    if (hash != null) request.setHash(hash);
    if (sendsDigest()) request.setDigest(ByteString.copyFrom(digest.digest()));
    else request.setData(ByteString.copyFrom(data.toByteArray()));
    reset();
    return key.cluster().sign(request.build()).getSignature().toByteArray();
  }

  @Override
  protected boolean engineVerify(byte[] signature) throws SignatureException {
    if (verifier == null)
      throw new SignatureException("initialise the signature for verification first");
    return verifier.verify(signature);
  }

  /**
   * RSASSA-PSS only. Verification takes any parameters; signing on the key server takes MGF1 over
   * the message's hash and a salt as long as it (what TLS 1.3 and CMS use), refused here otherwise.
   */
  @Override
  protected void engineSetParameter(AlgorithmParameterSpec params)
      throws InvalidAlgorithmParameterException {
    if (scheme != SignatureScheme.RSA_PSS) {
      if (params == null) return;
      throw new InvalidAlgorithmParameterException(jcaName + " takes no parameters");
    }
    if (!(params instanceof PSSParameterSpec pss))
      throw new InvalidAlgorithmParameterException("RSASSA-PSS takes a PSSParameterSpec");
    pssParameters = pss;
    hash = signable(pss);
    if (verifier != null) verifier.setParameter(pss);
    else if (key != null && hash == null)
      throw new InvalidAlgorithmParameterException(unsignable(pss));
  }

  private PSSParameterSpec pssParameters;

  private static HashAlgorithm signable(PSSParameterSpec pss) {
    HashAlgorithm h = Hashes.fromJca(pss.getDigestAlgorithm());
    boolean mgf1Same =
        pss.getMGFParameters() instanceof MGF1ParameterSpec m
            && Hashes.fromJca(m.getDigestAlgorithm()) == h;
    boolean fits =
        h != HashAlgorithm.UNRECOGNIZED
            && mgf1Same
            && pss.getSaltLength() == Hashes.length(h)
            && pss.getTrailerField() == 1;
    return fits ? h : null;
  }

  private static String unsignable(PSSParameterSpec pss) {
    return "the key server signs RSASSA-PSS with MGF1 over the same SHA-1/2 hash and a salt as long as the hash; not "
        + pss;
  }

  @Override
  protected AlgorithmParameters engineGetParameters() {
    if (pssParameters == null) return null;
    try {
      AlgorithmParameters p = AlgorithmParameters.getInstance("RSASSA-PSS");
      p.init(pssParameters);
      return p;
    } catch (GeneralSecurityException e) {
      return null;
    }
  }

  @Override
  @Deprecated
  protected void engineSetParameter(String param, Object value) throws InvalidParameterException {
    throw new InvalidParameterException("use setParameter(AlgorithmParameterSpec)");
  }

  @Override
  @Deprecated
  protected Object engineGetParameter(String param) throws InvalidParameterException {
    throw new InvalidParameterException("use getParameters()");
  }
}
