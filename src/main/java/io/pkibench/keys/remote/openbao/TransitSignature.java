package io.pkibench.keys.remote.openbao;

import java.io.ByteArrayOutputStream;
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
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Map;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.oiw.OIWObjectIdentifiers;
import org.bouncycastle.asn1.x509.DigestInfo;

/**
 * {@code Signature} over a {@link TransitKey}: RSASSA-PKCS1-v1_5, RSASSA-PSS and ECDSA hash here
 * and ask transit to sign the digest ({@code prehashed}), a few dozen bytes whatever the message;
 * Ed25519 sends the message, as the scheme asks; NONEwithRSA (a DigestInfo) and NONEwithECDSA (a
 * digest) send the digest given. PSS is {@code SHA256withRSA/PSS} as BouncyCastle and RFC 4055's
 * defaults have it: MGF1 with the same digest, a salt as long as the digest. Verification needs no
 * private key and runs locally through the installed providers.
 */
public final class TransitSignature extends SignatureSpi {
  private static final Map<ASN1ObjectIdentifier, String> DIGESTS =
      Map.of(
          OIWObjectIdentifiers.idSHA1, "SHA-1",
          NISTObjectIdentifiers.id_sha256, "SHA-256",
          NISTObjectIdentifiers.id_sha384, "SHA-384",
          NISTObjectIdentifiers.id_sha512, "SHA-512");

  private final String jcaName;
  private final String digestName;
  private MessageDigest digest;
  private ByteArrayOutputStream data;
  private TransitKey key;
  private Signature verifier;

  TransitSignature(String jcaName, String digestName) {
    this.jcaName = jcaName;
    this.digestName = digestName;
  }

  @Override
  protected void engineInitSign(PrivateKey privateKey) throws InvalidKeyException {
    if (!(privateKey instanceof TransitKey transit))
      throw new InvalidKeyException(
          "the "
              + TransitProvider.NAME
              + " provider signs only with keys of an openbao: key source");
    boolean fits =
        jcaName.contains("withRSA")
            ? transit instanceof TransitKey.Rsa
            : jcaName.endsWith("withECDSA")
                ? transit instanceof TransitKey.Ec
                : transit instanceof TransitKey.Ed;
    if (!fits) throw new InvalidKeyException(jcaName + " cannot use " + transit);
    key = transit;
    verifier = null;
    try {
      if (digestName != null) digest = MessageDigest.getInstance(digestName);
      else data = new ByteArrayOutputStream();
    } catch (NoSuchAlgorithmException e) {
      throw new InvalidKeyException(e);
    }
  }

  @Override
  protected void engineInitVerify(PublicKey publicKey) throws InvalidKeyException {
    try {
      if (isPss()) {
        verifier = Signature.getInstance("RSASSA-PSS");
        verifier.setParameter(pssParameters(digestName));
      } else {
        verifier = Signature.getInstance(jcaName);
      }
      verifier.initVerify(publicKey);
      key = null;
    } catch (NoSuchAlgorithmException | InvalidAlgorithmParameterException e) {
      throw new InvalidKeyException("no installed provider verifies " + jcaName, e);
    }
  }

  @Override
  protected void engineUpdate(byte b) throws SignatureException {
    engineUpdate(new byte[] {b}, 0, 1);
  }

  @Override
  protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
    if (verifier != null) verifier.update(b, off, len);
    else if (key == null) throw new SignatureException("initialise the signature first");
    else if (digest != null) digest.update(b, off, len);
    else data.write(b, off, len);
  }

  @Override
  protected byte[] engineSign() throws SignatureException {
    if (key == null) throw new SignatureException("initialise the signature for signing first");
    byte[] input;
    if (digest != null) {
      input = digest.digest();
    } else {
      input = data.toByteArray();
      data.reset();
    }
    if (jcaName.equals("NONEwithRSA")) return signDigestInfo(input);
    if (jcaName.equals("NONEwithECDSA"))
      return key.source().sign(key, digestOf(input), false, input);
    return key.source().sign(key, digestName, isPss(), input);
  }

  private boolean isPss() {
    return jcaName.endsWith("/PSS");
  }

  /** MGF1 with the message's digest and a salt of the digest's length, trailer 1. */
  static PSSParameterSpec pssParameters(String digestName) {
    int saltBytes =
        switch (digestName) {
          case "SHA-256" -> 32;
          case "SHA-384" -> 48;
          default -> 64;
        };
    return new PSSParameterSpec(
        digestName,
        "MGF1",
        new MGF1ParameterSpec(digestName),
        saltBytes,
        PSSParameterSpec.TRAILER_FIELD_BC);
  }

  /** RSASSA-PKCS1-v1_5 over a DigestInfo: transit is given its digest and the digest's name. */
  private byte[] signDigestInfo(byte[] encoded) throws SignatureException {
    DigestInfo info;
    try {
      info = DigestInfo.getInstance(encoded);
    } catch (IllegalArgumentException e) {
      throw new SignatureException("NONEwithRSA takes a DER DigestInfo: " + e.getMessage(), e);
    }
    String name = DIGESTS.get(info.getAlgorithmId().getAlgorithm());
    if (name == null)
      throw new SignatureException(
          "NONEwithRSA: transit signs SHA-1 and SHA-2 digests, not "
              + info.getAlgorithmId().getAlgorithm());
    return key.source().sign(key, name, false, info.getDigest());
  }

  /** An ECDSA digest's hash, known by its length alone. */
  private static String digestOf(byte[] digest) throws SignatureException {
    return switch (digest.length) {
      case 20 -> "SHA-1";
      case 32 -> "SHA-256";
      case 48 -> "SHA-384";
      case 64 -> "SHA-512";
      default ->
          throw new SignatureException(
              "NONEwithECDSA takes a SHA-1 or SHA-2 digest, not " + digest.length + " bytes");
    };
  }

  @Override
  protected boolean engineVerify(byte[] signature) throws SignatureException {
    if (verifier == null)
      throw new SignatureException("initialise the signature for verification first");
    return verifier.verify(signature);
  }

  @Override
  @Deprecated
  protected void engineSetParameter(String param, Object value) {
    throw new InvalidParameterException(jcaName + " takes no parameters");
  }

  @Override
  @Deprecated
  protected Object engineGetParameter(String param) {
    throw new InvalidParameterException(jcaName + " has no parameters");
  }
}
