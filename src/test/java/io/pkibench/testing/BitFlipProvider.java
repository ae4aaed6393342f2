package io.pkibench.testing;

import java.nio.ByteBuffer;
import java.security.AlgorithmParameters;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.InvalidParameterException;
import java.security.Key;
import java.security.MessageDigest;
import java.security.MessageDigestSpi;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;
import java.security.spec.AlgorithmParameterSpec;
import java.util.List;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.ShortBufferException;

/**
 * A broken accelerator or HSM: a real JCA provider whose every signature, digest and ciphertext is
 * the JDK's with one bit flipped. The per-operation checks exist for this fault; a workload run on
 * it must count each operation as failed, not end.
 */
public final class BitFlipProvider extends Provider {
  public static final String NAME = "BitFlip";
  private static final List<String> SIGNATURES =
      List.of(
          "SHA256withRSA",
          "SHA384withRSA",
          "SHA512withRSA",
          "SHA256withECDSA",
          "SHA384withECDSA",
          "SHA512withECDSA",
          "Ed25519",
          "RSASSA-PSS");
  private static final List<String> DIGESTS = List.of("SHA-256", "SHA-384", "SHA-512", "SHA3-256");

  public BitFlipProvider() {
    super(
        NAME, "1.0", "every output of the JDK's providers with one bit flipped (a planted fault)");
    for (String a : SIGNATURES) putService(new Flipping(this, "Signature", a));
    for (String a : DIGESTS) putService(new Flipping(this, "MessageDigest", a));
    putService(new Flipping(this, "Cipher", "AES/GCM/NoPadding"));
  }

  static byte[] flipped(byte[] out) {
    if (out.length > 0) out[out.length / 2] ^= 0x01;
    return out;
  }

  private static final class Flipping extends Service {
    Flipping(Provider provider, String type, String algorithm) {
      super(provider, type, algorithm, Flipping.class.getName(), null, null);
    }

    @Override
    public Object newInstance(Object parameter) throws NoSuchAlgorithmException {
      try {
        return switch (getType()) {
          case "Signature" -> new FlippedSignature(Signature.getInstance(getAlgorithm()));
          case "MessageDigest" -> new FlippedDigest(MessageDigest.getInstance(getAlgorithm()));
          default -> new FlippedCipher(Cipher.getInstance(getAlgorithm()));
        };
      } catch (NoSuchPaddingException e) {
        throw new NoSuchAlgorithmException(e);
      }
    }

    @Override
    public boolean supportsParameter(Object parameter) {
      return true;
    }
  }

  private static final class FlippedSignature extends SignatureSpi {
    private final Signature real;

    FlippedSignature(Signature real) {
      this.real = real;
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
      real.initVerify(key);
    }

    @Override
    protected void engineInitSign(PrivateKey key) throws InvalidKeyException {
      real.initSign(key);
    }

    @Override
    protected void engineInitSign(PrivateKey key, SecureRandom random) throws InvalidKeyException {
      real.initSign(key, random);
    }

    @Override
    protected void engineUpdate(byte b) throws SignatureException {
      real.update(b);
    }

    @Override
    protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
      real.update(b, off, len);
    }

    @Override
    protected byte[] engineSign() throws SignatureException {
      return flipped(real.sign());
    }

    @Override
    protected boolean engineVerify(byte[] sigBytes) throws SignatureException {
      return real.verify(sigBytes);
    }

    @Override
    protected void engineSetParameter(AlgorithmParameterSpec params)
        throws InvalidAlgorithmParameterException {
      real.setParameter(params);
    }

    @Override
    protected AlgorithmParameters engineGetParameters() {
      return real.getParameters();
    }

    @Override
    @Deprecated
    protected void engineSetParameter(String param, Object value) throws InvalidParameterException {
      throw new InvalidParameterException("not supported");
    }

    @Override
    @Deprecated
    protected Object engineGetParameter(String param) throws InvalidParameterException {
      throw new InvalidParameterException("not supported");
    }
  }

  private static final class FlippedDigest extends MessageDigestSpi {
    private final MessageDigest real;

    FlippedDigest(MessageDigest real) {
      this.real = real;
    }

    @Override
    protected void engineUpdate(byte input) {
      real.update(input);
    }

    @Override
    protected void engineUpdate(byte[] input, int offset, int len) {
      real.update(input, offset, len);
    }

    @Override
    protected byte[] engineDigest() {
      return flipped(real.digest());
    }

    @Override
    protected void engineReset() {
      real.reset();
    }

    @Override
    protected int engineGetDigestLength() {
      return real.getDigestLength();
    }
  }

  /** Flips a bit of what doFinal returns; ciphertext streamed through update is left as it is. */
  private static final class FlippedCipher extends CipherSpi {
    private final Cipher real;

    FlippedCipher(Cipher real) {
      this.real = real;
    }

    @Override
    protected void engineSetMode(String mode) throws NoSuchAlgorithmException {
      if (!mode.equalsIgnoreCase("GCM")) throw new NoSuchAlgorithmException(mode);
    }

    @Override
    protected void engineSetPadding(String padding) throws NoSuchPaddingException {
      if (!padding.equalsIgnoreCase("NoPadding")) throw new NoSuchPaddingException(padding);
    }

    @Override
    protected int engineGetBlockSize() {
      return real.getBlockSize();
    }

    @Override
    protected int engineGetOutputSize(int inputLen) {
      return real.getOutputSize(inputLen);
    }

    @Override
    protected byte[] engineGetIV() {
      return real.getIV();
    }

    @Override
    protected AlgorithmParameters engineGetParameters() {
      return real.getParameters();
    }

    @Override
    protected void engineInit(int opmode, Key key, SecureRandom random) throws InvalidKeyException {
      real.init(opmode, key, random);
    }

    @Override
    protected void engineInit(
        int opmode, Key key, AlgorithmParameterSpec params, SecureRandom random)
        throws InvalidKeyException, InvalidAlgorithmParameterException {
      real.init(opmode, key, params, random);
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameters params, SecureRandom random)
        throws InvalidKeyException, InvalidAlgorithmParameterException {
      real.init(opmode, key, params, random);
    }

    @Override
    protected void engineUpdateAAD(byte[] src, int offset, int len) {
      real.updateAAD(src, offset, len);
    }

    @Override
    protected void engineUpdateAAD(ByteBuffer src) {
      real.updateAAD(src);
    }

    @Override
    protected byte[] engineUpdate(byte[] input, int offset, int len) {
      return real.update(input, offset, len);
    }

    @Override
    protected int engineUpdate(byte[] input, int offset, int len, byte[] output, int outputOffset)
        throws ShortBufferException {
      return real.update(input, offset, len, output, outputOffset);
    }

    @Override
    protected byte[] engineDoFinal(byte[] input, int offset, int len)
        throws IllegalBlockSizeException, BadPaddingException {
      return flipped(real.doFinal(input, offset, len));
    }

    @Override
    protected int engineDoFinal(byte[] input, int offset, int len, byte[] output, int outputOffset)
        throws ShortBufferException, IllegalBlockSizeException, BadPaddingException {
      int n = real.doFinal(input, offset, len, output, outputOffset);
      if (n > 0) output[outputOffset + n / 2] ^= 0x01;
      return n;
    }
  }
}
