package io.pkibench.workload.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.openbao.Transit;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.openbao.OpenBaoWorkloads.Kind;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The transit workloads. Signatures are checked with the key's public key, fetched once; with
 * --verify, ciphertexts are opened and HMACs recomputed here with the key exported once (so the key
 * must be exportable), never by asking OpenBao again.
 */
final class TransitWorkload implements Workload {
  private final Kind kind;
  private final OpenBaoClient client;
  private final boolean verify;
  private final String mount;
  private final String key;
  private final String hash;
  private final int sizeBytes;
  private final String type;
  private final PublicKey publicKey;
  private final byte[] exportedKey;

  /** What transit-verify and transit-decrypt send each time: made once. */
  private final Map<String, Object> fixedRequest = new LinkedHashMap<>();

  private final byte[] fixedPlaintext;

  TransitWorkload(Kind kind, OpenBaoClient client, boolean verify, Params params) throws Exception {
    this.kind = kind;
    this.client = client;
    this.verify = verify;
    this.mount = params.get("mount");
    this.key = params.get("key");
    this.hash = params.get("hash");
    this.sizeBytes = params.bytes("size");
    JsonNode described = client.get(mount + "/keys/" + key);
    this.type = described.path("data").path("type").asText();
    boolean signs = kind == Kind.TRANSIT_SIGN || kind == Kind.TRANSIT_VERIFY;
    if (signs && !described.path("data").path("supports_signing").asBoolean())
      throw new IllegalArgumentException(
          "-p key="
              + key
              + ": transit key of type "
              + type
              + " does not sign; give an RSA, ECDSA or Ed25519 key");
    this.publicKey = signs ? Transit.latestPublicKey(described) : null;
    boolean needsExport = verify && (kind == Kind.TRANSIT_ENCRYPT || kind == Kind.TRANSIT_HMAC);
    this.exportedKey =
        needsExport ? export(kind == Kind.TRANSIT_HMAC ? "hmac-key" : "encryption-key") : null;
    this.fixedPlaintext = new byte[sizeBytes];
    new SplittableRandom(7).nextBytes(fixedPlaintext);
    if (kind == Kind.TRANSIT_VERIFY) {
      Map<String, Object> sign = signRequest(fixedPlaintext);
      String signature = client.post(signPath(), sign).path("data").path("signature").asText();
      checkSignature(fixedPlaintext, signature);
      fixedRequest.putAll(sign);
      fixedRequest.put("signature", signature);
    } else if (kind == Kind.TRANSIT_DECRYPT) {
      fixedRequest.put(
          "ciphertext",
          client
              .post(mount + "/encrypt/" + key, Map.of("plaintext", Transit.base64(fixedPlaintext)))
              .path("data")
              .path("ciphertext")
              .asText());
    }
  }

  private byte[] export(String what) throws Exception {
    JsonNode keys;
    try {
      keys =
          client.get(mount + "/export/" + what + "/" + key + "/latest").path("data").path("keys");
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "--verify: "
              + kind.flag
              + " checks each answer with the key exported once, and transit key "
              + key
              + " cannot be exported ("
              + e.getMessage()
              + "); create it with exportable=true (serve openbao's pkibench-aes is) or run without --verify");
    }
    return Base64.getDecoder().decode(keys.elements().next().asText());
  }

  private boolean prehashed() {
    return !type.equals("ed25519");
  }

  private String signPath() {
    return mount + "/sign/" + key + (prehashed() ? "/" + hash : "");
  }

  private Map<String, Object> signRequest(byte[] message) throws GeneralSecurityException {
    Map<String, Object> body = new LinkedHashMap<>();
    if (prehashed()) {
      body.put(
          "input",
          Transit.base64(MessageDigest.getInstance(Transit.jcaDigest(hash)).digest(message)));
      body.put("prehashed", true);
    } else {
      body.put("input", Transit.base64(message));
    }
    if (type.startsWith("rsa")) body.put("signature_algorithm", "pkcs1v15");
    return body;
  }

  private void checkSignature(byte[] message, String signature) throws GeneralSecurityException {
    String algorithm =
        type.startsWith("rsa")
            ? jcaPrefix() + "withRSA"
            : type.startsWith("ecdsa") ? jcaPrefix() + "withECDSA" : "Ed25519";
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(publicKey);
    verifier.update(message);
    if (!verifier.verify(Transit.valueBytes(signature)))
      throw new SignatureException(
          "transit key "
              + key
              + "'s signature does not verify with its public key ("
              + algorithm
              + ")");
  }

  private String jcaPrefix() {
    return Transit.jcaDigest(hash).replace("-", "");
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    SplittableRandom random = new SplittableRandom(worker * 7919L + 1);
    byte[] data = new byte[sizeBytes];
    return switch (kind) {
      case TRANSIT_SIGN ->
          () -> {
            random.nextBytes(data);
            String signature =
                client.post(signPath(), signRequest(data)).path("data").path("signature").asText();
            if (verify) checkSignature(data, signature);
            else Transit.valueBytes(signature);
          };
      case TRANSIT_VERIFY ->
          () -> {
            JsonNode answer = client.post(verifyPath(), fixedRequest);
            if (!answer.path("data").path("valid").asBoolean())
              throw new SignatureException(
                  "OpenBao says the signature made by " + key + " is not valid");
          };
      case TRANSIT_ENCRYPT ->
          () -> {
            random.nextBytes(data);
            String ciphertext =
                client
                    .post(mount + "/encrypt/" + key, Map.of("plaintext", Transit.base64(data)))
                    .path("data")
                    .path("ciphertext")
                    .asText();
            byte[] sealed = Transit.valueBytes(ciphertext);
            if (verify && !Arrays.equals(openGcm(sealed), data))
              throw new GeneralSecurityException(
                  "the ciphertext does not open to the plaintext sent");
          };
      case TRANSIT_DECRYPT ->
          () -> {
            String plaintext =
                client
                    .post(mount + "/decrypt/" + key, fixedRequest)
                    .path("data")
                    .path("plaintext")
                    .asText();
            if (!Arrays.equals(Base64.getDecoder().decode(plaintext), fixedPlaintext))
              throw new GeneralSecurityException(
                  "transit decrypted to other bytes than were encrypted");
          };
      case TRANSIT_HMAC -> {
        Mac mac = exportedKey == null ? null : Mac.getInstance(macName());
        if (mac != null) mac.init(new SecretKeySpec(exportedKey, macName()));
        yield () -> {
          random.nextBytes(data);
          String hmac =
              client
                  .post(mount + "/hmac/" + key + "/" + hash, Map.of("input", Transit.base64(data)))
                  .path("data")
                  .path("hmac")
                  .asText();
          byte[] got = Transit.valueBytes(hmac);
          if (mac != null && !MessageDigest.isEqual(mac.doFinal(data), got))
            throw new GeneralSecurityException(
                "transit's HMAC differs from the one the exported key gives");
        };
      }
      default -> throw new IllegalStateException(kind + " is not a transit workload");
    };
  }

  private String verifyPath() {
    return mount + "/verify/" + key + (prehashed() ? "/" + hash : "");
  }

  private String macName() {
    return "Hmac" + jcaPrefix();
  }

  /** aes256-gcm96: a 12-byte nonce, then the ciphertext and its 16-byte tag. */
  private byte[] openGcm(byte[] sealed) throws GeneralSecurityException {
    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
    gcm.init(
        Cipher.DECRYPT_MODE,
        new SecretKeySpec(exportedKey, "AES"),
        new GCMParameterSpec(128, sealed, 0, 12));
    return gcm.doFinal(sealed, 12, sealed.length - 12);
  }

  @Override
  public void close() {
    client.close();
  }
}
