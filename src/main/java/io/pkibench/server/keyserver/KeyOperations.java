package io.pkibench.server.keyserver;

import static io.pkibench.server.keyserver.KeyService.refusal;

import io.grpc.Status;
import io.pkibench.keys.SigningKey;
import io.pkibench.keyserver.protocol.DecryptRequest;
import io.pkibench.keyserver.protocol.HashAlgorithm;
import io.pkibench.keyserver.protocol.Hashes;
import io.pkibench.keyserver.protocol.SignRequest;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

/**
 * The cryptography of a {@link KeyService} call, once the caller may use the key: a signature made
 * as the request's scheme and hash ask, a cipher set up for its padding. A request that does not
 * fit the key is refused with a status that says why.
 */
final class KeyOperations {
  private KeyOperations() {}

  static byte[] sign(SigningKey key, SignRequest request) throws GeneralSecurityException {
    String keyAlgorithm = key.privateKey().getAlgorithm();
    boolean digest = request.getInputCase() == SignRequest.InputCase.DIGEST;
    if (request.getInputCase() == SignRequest.InputCase.INPUT_NOT_SET)
      throw refusal(Status.INVALID_ARGUMENT, "give the data or its digest");
    byte[] input = digest ? request.getDigest().toByteArray() : request.getData().toByteArray();
    HashAlgorithm hash = request.getHash();
    String prefix = Hashes.signaturePrefix(hash);
    switch (request.getScheme()) {
      case RSA_PKCS1_V1_5, RSA_PSS, ECDSA -> {
        if (prefix == null)
          throw refusal(
              Status.INVALID_ARGUMENT,
              request.getScheme() + " needs a hash: SHA_1, SHA_256, SHA_384 or SHA_512");
        if (digest && input.length != Hashes.length(hash)) {
          throw refusal(
              Status.INVALID_ARGUMENT,
              "a "
                  + Hashes.jcaName(hash)
                  + " digest is "
                  + Hashes.length(hash)
                  + " bytes, not "
                  + input.length);
        }
      }
      default -> {}
    }
    return switch (request.getScheme()) {
      case RSA_PKCS1_V1_5 -> {
        expect(keyAlgorithm, "RSA", request);
        yield digest
            ? pkcs1OverDigest(key, Hashes.digestInfo(hash, input))
            : run(key, prefix + "withRSA", null, input);
      }
      case RSA_PSS -> {
        expect(keyAlgorithm, "RSA", request);
        if (digest) throw refusal(Status.INVALID_ARGUMENT, "RSA_PSS signs the data, not a digest");
        String name = Hashes.jcaName(hash);
        yield run(
            key,
            "RSASSA-PSS",
            new PSSParameterSpec(name, "MGF1", new MGF1ParameterSpec(name), Hashes.length(hash), 1),
            input);
      }
      case ECDSA -> {
        expect(keyAlgorithm, "EC", request);
        yield digest
            ? run(key, "NONEwithECDSA", null, input)
            : run(key, prefix + "withECDSA", null, input);
      }
      case ED25519 -> {
        if (!keyAlgorithm.equals("Ed25519") && !keyAlgorithm.equals("EdDSA"))
          throw refusal(Status.INVALID_ARGUMENT, mismatch(keyAlgorithm, request));
        if (digest) throw refusal(Status.INVALID_ARGUMENT, "ED25519 signs the data, not a digest");
        yield run(key, "Ed25519", null, input);
      }
      case ML_DSA -> {
        if (!keyAlgorithm.startsWith("ML-DSA"))
          throw refusal(Status.INVALID_ARGUMENT, mismatch(keyAlgorithm, request));
        if (digest) throw refusal(Status.INVALID_ARGUMENT, "ML_DSA signs the data, not a digest");
        yield run(key, "ML-DSA", null, input);
      }
      default ->
          throw refusal(
              Status.INVALID_ARGUMENT,
              "unknown signature scheme "
                  + request.getSchemeValue()
                  + "; use RSA_PKCS1_V1_5, RSA_PSS, ECDSA, ED25519 or ML_DSA");
    };
  }

  private static void expect(String keyAlgorithm, String wanted, SignRequest request) {
    if (!keyAlgorithm.equals(wanted))
      throw refusal(Status.INVALID_ARGUMENT, mismatch(keyAlgorithm, request));
  }

  private static String mismatch(String keyAlgorithm, SignRequest request) {
    return "key "
        + request.getAlias()
        + " is "
        + keyAlgorithm
        + " and cannot sign "
        + request.getScheme();
  }

  /**
   * RSASSA-PKCS1-v1_5 over a DigestInfo: NONEwithRSA where the key's provider has it; else
   * (Corretto has none) the EMSA-PKCS1-v1_5 block through its raw RSA private operation, which is
   * RSASP1 itself (RFC 8017 8.2.1), so the key is not converted to another provider's form on every
   * call.
   */
  private static byte[] pkcs1OverDigest(SigningKey key, byte[] digestInfo)
      throws GeneralSecurityException {
    if (key.provider().getService("Signature", "NONEwithRSA") == null
        && key.provider().getService("Cipher", "RSA/ECB/NoPadding") != null
        && key.publicKey() instanceof RSAPublicKey rsa) {
      int k = (rsa.getModulus().bitLength() + 7) / 8;
      if (digestInfo.length > k - 11)
        throw refusal(
            Status.INVALID_ARGUMENT,
            "the digest does not fit a " + rsa.getModulus().bitLength() + "-bit key");
      byte[] block = new byte[k];
      block[1] = 0x01;
      Arrays.fill(block, 2, k - digestInfo.length - 1, (byte) 0xFF);
      System.arraycopy(digestInfo, 0, block, k - digestInfo.length, digestInfo.length);
      Cipher raw = Cipher.getInstance("RSA/ECB/NoPadding", key.provider());
      raw.init(Cipher.DECRYPT_MODE, key.privateKey());
      byte[] s = raw.doFinal(block);
      if (s.length == k) return s;
      byte[] padded = new byte[k]; // an integer with leading zero bytes comes back shorter
      System.arraycopy(s, 0, padded, k - s.length, s.length);
      return padded;
    }
    return run(key, "NONEwithRSA", null, digestInfo);
  }

  /**
   * Through the key's own provider when it has the algorithm, else the first installed provider
   * that takes the key.
   */
  private static byte[] run(
      SigningKey key, String algorithm, AlgorithmParameterSpec params, byte[] input)
      throws GeneralSecurityException {
    Signature signature;
    try {
      signature = Signature.getInstance(algorithm, key.provider());
    } catch (NoSuchAlgorithmException e) {
      signature = Signature.getInstance(algorithm);
    }
    PrivateKey privateKey = key.privateKey();
    signature.initSign(privateKey);
    if (params != null) signature.setParameter(params);
    signature.update(input);
    return signature.sign();
  }

  static Cipher cipher(DecryptRequest request, SigningKey key) throws GeneralSecurityException {
    String transformation;
    AlgorithmParameterSpec params = null;
    switch (request.getPadding()) {
      case PKCS1_V1_5 -> transformation = "RSA/ECB/PKCS1Padding";
      case OAEP -> {
        transformation = "RSA/ECB/OAEPPadding";
        HashAlgorithm hash =
            request.getOaepHash() == HashAlgorithm.HASH_ALGORITHM_UNSPECIFIED
                ? HashAlgorithm.SHA_1
                : request.getOaepHash();
        HashAlgorithm mgf =
            request.getOaepMgf1Hash() == HashAlgorithm.HASH_ALGORITHM_UNSPECIFIED
                ? HashAlgorithm.SHA_1
                : request.getOaepMgf1Hash();
        if (Hashes.jcaName(hash) == null || Hashes.jcaName(mgf) == null)
          throw refusal(
              Status.INVALID_ARGUMENT, "unknown OAEP hash; use SHA_1, SHA_256, SHA_384 or SHA_512");
        params =
            new OAEPParameterSpec(
                Hashes.jcaName(hash),
                "MGF1",
                new MGF1ParameterSpec(Hashes.jcaName(mgf)),
                PSource.PSpecified.DEFAULT);
      }
      default ->
          throw refusal(
              Status.INVALID_ARGUMENT,
              "unknown padding " + request.getPaddingValue() + "; use PKCS1_V1_5 or OAEP");
    }
    Cipher cipher;
    try {
      cipher = Cipher.getInstance(transformation, key.provider());
      cipher.init(Cipher.DECRYPT_MODE, key.privateKey(), params);
    } catch (NoSuchAlgorithmException | NoSuchPaddingException | InvalidKeyException e) {
      cipher = Cipher.getInstance(transformation);
      cipher.init(Cipher.DECRYPT_MODE, key.privateKey(), params);
    }
    return cipher;
  }
}
