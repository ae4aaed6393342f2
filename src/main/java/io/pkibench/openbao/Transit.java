package io.pkibench.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.engines.RFC5649WrapEngine;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.util.Arrays;

/**
 * The transit secrets engine's formats: its {@code vault:vN:BASE64} values, its key types, its hash
 * names, and bringing a key of our own in (BYOK import).
 */
public final class Transit {
  private Transit() {}

  /** The bytes of a {@code vault:v1:BASE64} value (signature, ciphertext, HMAC). */
  public static byte[] valueBytes(String value) {
    if (value == null || !value.startsWith("vault:v"))
      throw new IllegalArgumentException("not a transit value (vault:vN:BASE64): " + value);
    int colon = value.indexOf(':', "vault:v".length());
    if (colon < 0) throw new IllegalArgumentException("not a transit value: " + value);
    return Base64.getDecoder().decode(value.substring(colon + 1));
  }

  /** The version of a {@code vault:vN:…} value, N. */
  public static int valueVersion(String value) {
    int colon = value.indexOf(':', "vault:v".length());
    return Integer.parseInt(value.substring("vault:v".length(), colon));
  }

  public static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Transit's name of a JCA digest ({@code SHA-256} → {@code sha2-256}). */
  public static String hashName(String jcaDigest) {
    return switch (jcaDigest) {
      case "SHA-1" -> "sha1";
      case "SHA-224" -> "sha2-224";
      case "SHA-256" -> "sha2-256";
      case "SHA-384" -> "sha2-384";
      case "SHA-512" -> "sha2-512";
      default -> throw new IllegalArgumentException("transit has no hash named for " + jcaDigest);
    };
  }

  /** The JCA digest of a transit hash name ({@code sha2-256} → {@code SHA-256}). */
  public static String jcaDigest(String transitHash) {
    return switch (transitHash) {
      case "sha1" -> "SHA-1";
      case "sha2-224" -> "SHA-224";
      case "sha2-256" -> "SHA-256";
      case "sha2-384" -> "SHA-384";
      case "sha2-512" -> "SHA-512";
      default ->
          throw new IllegalArgumentException(
              "hash " + transitHash + ": use sha1, sha2-224, sha2-256, sha2-384 or sha2-512");
    };
  }

  /**
   * The transit key type that holds {@code key} ({@code rsa-2048}, {@code ecdsa-p256}, {@code
   * ed25519}); throws for a key transit cannot hold.
   */
  public static String keyType(PublicKey key) throws GeneralSecurityException {
    return switch (key) {
      case RSAPublicKey rsa -> "rsa-" + rsa.getModulus().bitLength();
      case ECPublicKey ec -> "ecdsa-p" + ec.getParams().getCurve().getField().getFieldSize();
      default -> {
        if (key.getAlgorithm().equals("Ed25519") || key.getAlgorithm().equals("EdDSA"))
          yield "ed25519";
        throw new GeneralSecurityException(
            "transit holds RSA, ECDSA and Ed25519 keys, not " + key.getAlgorithm());
      }
    };
  }

  /** The public key of the newest version of a {@code GET MOUNT/keys/NAME} answer. */
  public static PublicKey latestPublicKey(JsonNode keyAnswer) throws GeneralSecurityException {
    JsonNode data = keyAnswer.path("data");
    String type = data.path("type").asText();
    String pem =
        data.path("keys").path(data.path("latest_version").asText()).path("public_key").asText();
    if (pem.isEmpty())
      throw new GeneralSecurityException(
          "transit key " + data.path("name").asText() + " (" + type + ") shows no public key");
    if (!pem.startsWith("-----")) {
      // an ed25519 key's "public_key" is its bare 32 bytes in base64, not a PEM
      byte[] spki =
          Arrays.concatenate(
              new byte[] {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00},
              Base64.getDecoder().decode(pem.strip()));
      return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(spki));
    }
    String algorithm = type.startsWith("rsa") ? "RSA" : type.startsWith("ecdsa") ? "EC" : "Ed25519";
    String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    return KeyFactory.getInstance(algorithm)
        .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
  }

  /**
   * The body of {@code POST MOUNT/keys/NAME/import} that brings {@code key} in: an ephemeral
   * AES-256 key wrapped with RSA-OAEP (SHA-256, MGF1 SHA-256) under the engine's wrapping key,
   * followed by the PKCS#8 key wrapped with that AES key (KWP, RFC 5649), as transit asks.
   */
  public static Map<String, Object> importBody(PrivateKey key, String type, PublicKey wrappingKey)
      throws GeneralSecurityException {
    KeyGenerator aes = KeyGenerator.getInstance("AES");
    aes.init(256, new SecureRandom());
    SecretKey ephemeral = aes.generateKey();
    Cipher oaep = Cipher.getInstance("RSA/ECB/OAEPPadding");
    oaep.init(
        Cipher.ENCRYPT_MODE,
        wrappingKey,
        new OAEPParameterSpec(
            "SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT));
    byte[] wrappedAes = oaep.doFinal(ephemeral.getEncoded());
    RFC5649WrapEngine kwp = new RFC5649WrapEngine(AESEngine.newInstance());
    kwp.init(true, new KeyParameter(ephemeral.getEncoded()));
    byte[] pkcs8 = key.getEncoded();
    byte[] wrappedKey = kwp.wrap(pkcs8, 0, pkcs8.length);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("ciphertext", base64(Arrays.concatenate(wrappedAes, wrappedKey)));
    body.put("type", type);
    body.put("hash_function", "SHA256");
    return body;
  }

  /** The wrapping key of {@code GET MOUNT/wrapping_key}. */
  public static PublicKey wrappingKey(JsonNode answer) throws GeneralSecurityException {
    String pem = answer.path("data").path("public_key").asText();
    String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    return KeyFactory.getInstance("RSA")
        .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
  }
}
