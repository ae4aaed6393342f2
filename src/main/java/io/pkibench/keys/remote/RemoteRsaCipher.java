package io.pkibench.keys.remote;

import com.google.protobuf.ByteString;
import io.pkibench.keyserver.protocol.DecryptRequest;
import io.pkibench.keyserver.protocol.HashAlgorithm;
import io.pkibench.keyserver.protocol.Hashes;
import io.pkibench.keyserver.protocol.Padding;
import java.io.ByteArrayOutputStream;
import java.security.AlgorithmParameters;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.NoSuchAlgorithmException;
import java.security.ProviderException;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.InvalidParameterSpecException;
import java.security.spec.MGF1ParameterSpec;
import java.util.Locale;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;
import javax.crypto.spec.SecretKeySpec;

/**
 * RSA decryption and key unwrapping with a {@link RemoteKey.Rsa}: PKCS#1 v1.5 or OAEP (the hashes
 * from an {@link OAEPParameterSpec}, SHA-1 for both when none is given, as the JDK does for {@code
 * OAEPPadding}). Encryption needs only the public key and belongs to any local provider.
 */
public final class RemoteRsaCipher extends CipherSpi {
  private Padding padding;
  private HashAlgorithm oaepHash = HashAlgorithm.SHA_1;
  private HashAlgorithm oaepMgf1Hash = HashAlgorithm.SHA_1;
  private RemoteKey.Rsa key;
  private final ByteArrayOutputStream input = new ByteArrayOutputStream();

  RemoteRsaCipher(Padding padding) {
    this.padding = padding;
  }

  @Override
  protected void engineSetMode(String mode) throws NoSuchAlgorithmException {
    if (!mode.equalsIgnoreCase("ECB") && !mode.equalsIgnoreCase("NONE"))
      throw new NoSuchAlgorithmException("RSA has no mode " + mode + "; use ECB");
  }

  @Override
  protected void engineSetPadding(String name) throws NoSuchPaddingException {
    switch (name.toUpperCase(Locale.ROOT)) {
      case "PKCS1PADDING" -> padding = Padding.PKCS1_V1_5;
      case "OAEPPADDING" -> padding = Padding.OAEP;
      default ->
          throw new NoSuchPaddingException(
              "the key server decrypts PKCS1Padding or OAEPPadding, not " + name);
    }
  }

  @Override
  protected int engineGetBlockSize() {
    return 0;
  }

  @Override
  protected int engineGetOutputSize(int inputLen) {
    return key == null ? inputLen : (key.getModulus().bitLength() + 7) / 8;
  }

  @Override
  protected byte[] engineGetIV() {
    return null;
  }

  @Override
  protected AlgorithmParameters engineGetParameters() {
    return null;
  }

  @Override
  protected void engineInit(int opmode, Key k, SecureRandom random) throws InvalidKeyException {
    try {
      engineInit(opmode, k, (AlgorithmParameterSpec) null, random);
    } catch (InvalidAlgorithmParameterException e) {
      throw new InvalidKeyException(e.getMessage(), e);
    }
  }

  @Override
  protected void engineInit(int opmode, Key k, AlgorithmParameterSpec params, SecureRandom random)
      throws InvalidKeyException, InvalidAlgorithmParameterException {
    if (opmode != Cipher.DECRYPT_MODE && opmode != Cipher.UNWRAP_MODE) {
      throw new InvalidKeyException(
          "the pkibench-remote provider only decrypts and unwraps; encrypt with the public key through any provider");
    }
    if (!(k instanceof RemoteKey.Rsa rsa))
      throw new InvalidKeyException(
          "the pkibench-remote provider decrypts only with RSA keys of a remote: key source");
    if (params != null) {
      if (padding != Padding.OAEP || !(params instanceof OAEPParameterSpec oaep))
        throw new InvalidAlgorithmParameterException(
            "only OAEP takes parameters, an OAEPParameterSpec");
      if (!"MGF1".equalsIgnoreCase(oaep.getMGFAlgorithm())
          || !(oaep.getMGFParameters() instanceof MGF1ParameterSpec mgf)
          || !(oaep.getPSource() instanceof PSource.PSpecified p)
          || p.getValue().length != 0) {
        throw new InvalidAlgorithmParameterException(
            "the key server decrypts OAEP with MGF1 and an empty label");
      }
      oaepHash = Hashes.fromJca(oaep.getDigestAlgorithm());
      oaepMgf1Hash = Hashes.fromJca(mgf.getDigestAlgorithm());
      if (oaepHash == HashAlgorithm.UNRECOGNIZED || oaepMgf1Hash == HashAlgorithm.UNRECOGNIZED) {
        throw new InvalidAlgorithmParameterException(
            "OAEP hashes are SHA-1, SHA-256, SHA-384 or SHA-512, not "
                + oaep.getDigestAlgorithm()
                + "/"
                + mgf.getDigestAlgorithm());
      }
    }
    key = rsa;
    input.reset();
  }

  @Override
  protected void engineInit(int opmode, Key k, AlgorithmParameters params, SecureRandom random)
      throws InvalidKeyException, InvalidAlgorithmParameterException {
    try {
      engineInit(
          opmode,
          k,
          params == null ? null : params.getParameterSpec(OAEPParameterSpec.class),
          random);
    } catch (InvalidParameterSpecException e) {
      throw new InvalidAlgorithmParameterException(e);
    }
  }

  @Override
  protected byte[] engineUpdate(byte[] in, int off, int len) {
    input.write(in, off, len);
    return new byte[0];
  }

  @Override
  protected int engineUpdate(byte[] in, int off, int len, byte[] out, int outOff) {
    input.write(in, off, len);
    return 0;
  }

  @Override
  protected byte[] engineDoFinal(byte[] in, int off, int len)
      throws IllegalBlockSizeException, BadPaddingException {
    if (key == null) throw new IllegalStateException("initialise the cipher first");
    if (in != null) input.write(in, off, len);
    DecryptRequest.Builder request =
        DecryptRequest.newBuilder()
            .setAlias(key.alias())
            .setPadding(padding)
            .setCiphertext(ByteString.copyFrom(input.toByteArray()));
    if (padding == Padding.OAEP) request.setOaepHash(oaepHash).setOaepMgf1Hash(oaepMgf1Hash);
    input.reset();
    try {
      return key.cluster().call(stub -> stub.decrypt(request.build())).getPlaintext().toByteArray();
    } catch (KeyServerException e) {
      // The Cipher contract has no checked exception for "the server is down": a refusal of the
      // ciphertext is a bad padding, anything else a provider failure carrying the node's reason.
      if (e.refused())
        throw (BadPaddingException) new BadPaddingException(e.getMessage()).initCause(e);
      throw new ProviderException(e.getMessage(), e);
    }
  }

  @Override
  protected int engineDoFinal(byte[] in, int off, int len, byte[] out, int outOff)
      throws IllegalBlockSizeException, BadPaddingException, ShortBufferException {
    byte[] plain = engineDoFinal(in, off, len);
    if (out.length - outOff < plain.length)
      throw new ShortBufferException("need " + plain.length + " bytes");
    System.arraycopy(plain, 0, out, outOff, plain.length);
    return plain.length;
  }

  @Override
  protected Key engineUnwrap(byte[] wrapped, String algorithm, int type)
      throws InvalidKeyException, NoSuchAlgorithmException {
    if (type != Cipher.SECRET_KEY)
      throw new InvalidKeyException("the key server unwraps secret keys only");
    try {
      return new SecretKeySpec(engineDoFinal(wrapped, 0, wrapped.length), algorithm);
    } catch (IllegalBlockSizeException | BadPaddingException e) {
      throw new InvalidKeyException("cannot unwrap: " + e.getMessage(), e);
    }
  }

  @Override
  protected int engineGetKeySize(Key k) throws InvalidKeyException {
    if (k instanceof RemoteKey.Rsa rsa) return rsa.getModulus().bitLength();
    throw new InvalidKeyException("not a remote RSA key");
  }
}
