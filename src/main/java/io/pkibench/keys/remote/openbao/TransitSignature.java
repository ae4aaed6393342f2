package io.pkibench.keys.remote.openbao;

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
import java.util.Locale;
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

  static final String RSASSA_PSS = "RSASSA-PSS";

  private final String jcaName;

  /** The hash to sign over; for {@code RSASSA-PSS}, set by its parameters (null until then). */
  private String digestName;

  private PSSParameterSpec pssParameters;
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
        jcaName.contains("withRSA") || jcaName.equals(RSASSA_PSS)
            ? transit instanceof TransitKey.Rsa
            : jcaName.endsWith("withECDSA")
                ? transit instanceof TransitKey.Ec
                : transit instanceof TransitKey.Ed;
    if (!fits) throw new InvalidKeyException(jcaName + " cannot use " + transit);
    key = transit;
    verifier = null;
    try {
      startSigning();
    } catch (NoSuchAlgorithmException e) {
      throw new InvalidKeyException(e);
    }
  }

  /** RSASSA-PSS hashes once its parameters name the hash; until then it cannot take data. */
  private void startSigning() throws NoSuchAlgorithmException {
    digest = null;
    data = null;
    if (digestName != null) digest = MessageDigest.getInstance(digestName);
    else if (!jcaName.equals(RSASSA_PSS)) data = new ByteArrayOutputStream();
  }

  @Override
  protected void engineInitVerify(PublicKey publicKey) throws InvalidKeyException {
    try {
      if (jcaName.equals(RSASSA_PSS)) {
        verifier = Signature.getInstance(RSASSA_PSS);
        if (pssParameters != null) verifier.setParameter(pssParameters);
      } else if (isPss()) {
        verifier = Signature.getInstance(RSASSA_PSS);
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
    else if (data == null)
      throw new SignatureException("RSASSA-PSS: set its PSSParameterSpec before the data");
    else data.write(b, off, len);
  }

  @Override
  protected byte[] engineSign() throws SignatureException {
    if (key == null) throw new SignatureException("initialise the signature for signing first");
    if (digestName == null && jcaName.equals(RSASSA_PSS))
      throw new SignatureException("RSASSA-PSS needs its PSSParameterSpec");
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
    return jcaName.endsWith("/PSS") || jcaName.equals(RSASSA_PSS);
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

  /**
   * {@code RSASSA-PSS} only: transit signs PSS with MGF1 over the message's hash and a salt as long
   * as it ({@code salt_length=hash}: what TLS 1.3 and CMS use), so those parameters are taken and
   * any others refused here rather than signed otherwise; verification takes any.
   */
  @Override
  protected void engineSetParameter(AlgorithmParameterSpec params)
      throws InvalidAlgorithmParameterException {
    if (!jcaName.equals(RSASSA_PSS)) {
      if (params == null) return;
      throw new InvalidAlgorithmParameterException(jcaName + " takes no parameters");
    }
    if (!(params instanceof PSSParameterSpec pss))
      throw new InvalidAlgorithmParameterException("RSASSA-PSS takes a PSSParameterSpec");
    if (verifier != null) {
      verifier.setParameter(pss);
      pssParameters = pss;
      return;
    }
    String hash = signable(pss);
    if (hash == null)
      throw new InvalidAlgorithmParameterException(
          "OpenBao transit signs RSASSA-PSS with MGF1 over the same SHA-256/384/512 hash and a"
              + " salt as long as the hash; not "
              + pss);
    pssParameters = pss;
    digestName = hash;
    if (key != null) {
      try {
        startSigning();
      } catch (NoSuchAlgorithmException e) {
        throw new InvalidAlgorithmParameterException(e);
      }
    }
  }

  /** The JCA name of {@code pss}'s hash where transit can sign with it, else null. */
  private static String signable(PSSParameterSpec pss) {
    String hash = canonicalHash(pss.getDigestAlgorithm());
    if (hash == null) return null;
    boolean fits =
        pss.getMGFAlgorithm().equalsIgnoreCase("MGF1")
            && pss.getMGFParameters() instanceof MGF1ParameterSpec mgf
            && hash.equals(canonicalHash(mgf.getDigestAlgorithm()))
            && pss.getSaltLength() == pssParameters(hash).getSaltLength()
            && pss.getTrailerField() == PSSParameterSpec.TRAILER_FIELD_BC;
    return fits ? hash : null;
  }

  private static String canonicalHash(String name) {
    return switch (name.toUpperCase(Locale.ROOT).replace("-", "")) {
      case "SHA256" -> "SHA-256";
      case "SHA384" -> "SHA-384";
      case "SHA512" -> "SHA-512";
      default -> null;
    };
  }

  @Override
  protected AlgorithmParameters engineGetParameters() {
    if (pssParameters == null) return null;
    try {
      AlgorithmParameters p = AlgorithmParameters.getInstance(RSASSA_PSS);
      p.init(pssParameters);
      return p;
    } catch (GeneralSecurityException e) {
      return null;
    }
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
