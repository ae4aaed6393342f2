package io.pkibench.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.testing.TestProvider;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every provider pkibench offers held to Project Wycheproof's signature vectors (vendored in
 * src/test/resources/wycheproof, source and commit in its README): a valid signature verifies, an
 * invalid one (a modified signature, a malleable encoding, a wrong length…) does not. A provider that
 * does not offer an algorithm is said so in the output and skipped; ACCP not loading fails the test.
 */
class WycheproofTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A provider's verdict on one vector that contradicts the vector. */
  record Wrong(int tcId, String result, String comment, String verdict) {
    @Override
    public String toString() {
      return "tcId " + tcId + " (" + result + ", " + comment + "): " + verdict;
    }
  }

  /**
   * Deviations seen and named, by provider flag and file: each must stay exactly as listed, so a new
   * one fails and a fixed one is noticed. The JDK's SunEC verifies an ECDSA signature whose DER
   * INTEGER s lacks its leading zero (tcId 6, "MissingZero"): a malleable encoding of a real signature,
   * not a forgery, but one that BouncyCastle and ACCP refuse (JDK 25.0.x).
   */
  static final java.util.Map<String, List<Integer>> KNOWN_DEVIATIONS = java.util.Map.of(
      "jdk ecdsa_secp256r1_sha256_test", List.of(6),
      "jdk ecdsa_secp384r1_sha384_test", List.of(6));

  @ParameterizedTest(name = "{0} on {1}")
  @CsvSource({
      "rsa_signature_2048_sha256_test, SHA256withRSA",
      "rsa_signature_3072_sha256_test, SHA256withRSA",
      "rsa_pss_2048_sha256_mgf1_32_test, RSASSA-PSS",
      "ecdsa_secp256r1_sha256_test, SHA256withECDSA",
      "ecdsa_secp384r1_sha384_test, SHA384withECDSA",
      "ed25519_test, Ed25519"})
  void verify_everyVectorEveryProvider_validVerifyInvalidRefused(String file, String algorithm) throws Exception {
    JsonNode vectors = read(file);
    TestProvider.requireAccp(); // ACCP is one of the providers held to the vectors: where it does not load, say so
    int checked = 0;
    List<String> report = new ArrayList<>();
    for (ProviderChoice choice : ProviderChoice.values()) {
      Provider provider;
      try {
        provider = choice.providerFor("Signature", algorithm);
      } catch (NoSuchAlgorithmException notOffered) {
        System.out.println("wycheproof " + file + ": " + choice.flag + " offers no " + algorithm + ", not checked");
        continue;
      }
      List<Wrong> wrong = verifyAll(vectors, algorithm, provider);
      checked++;
      System.out.println("wycheproof " + file + " on " + choice.flag + " (" + provider.getName() + "): " + wrong.size() + " wrong");
      List<Integer> known = KNOWN_DEVIATIONS.getOrDefault(choice.flag + " " + file, List.of());
      if (!wrong.stream().map(Wrong::tcId).toList().equals(known)) {
        report.add(choice.flag + " (" + provider.getName() + "): " + wrong.size() + " wrong (known: tcId " + known + "), e.g. "
            + wrong.subList(0, Math.min(5, wrong.size())));
      }
    }
    assertTrue(checked >= 2, file + ": at least two providers checked, " + checked + " were");
    assertEquals(List.of(), report, file + ": every provider agrees with every valid and invalid vector, but the deviations named");
  }

  static JsonNode read(String file) throws Exception {
    try (InputStream in = WycheproofTest.class.getResourceAsStream("/wycheproof/" + file + ".json")) {
      assertTrue(in != null, "no vendored vectors " + file + ".json under src/test/resources/wycheproof");
      JsonNode tree = JSON.readTree(in);
      int tests = 0;
      for (JsonNode g : tree.get("testGroups")) tests += g.get("tests").size();
      assertEquals(tree.get("numberOfTests").asInt(), tests, file + ": the file holds every test it announces");
      return tree;
    }
  }

  static List<Wrong> verifyAll(JsonNode vectors, String algorithm, Provider provider) throws GeneralSecurityException {
    List<Wrong> wrong = new ArrayList<>();
    HexFormat hex = HexFormat.of();
    for (JsonNode group : vectors.get("testGroups")) {
      PublicKey key = publicKey(hex.parseHex(group.get("publicKeyDer").asText()), algorithm, provider);
      for (JsonNode t : group.get("tests")) {
        String result = t.get("result").asText();
        if (result.equals("acceptable")) continue; // either verdict is allowed
        String verdict;
        try {
          Signature s = Signature.getInstance(algorithm, provider);
          if (algorithm.equals("RSASSA-PSS")) {
            s.setParameter(new PSSParameterSpec(group.get("sha").asText(), "MGF1", new MGF1ParameterSpec(group.get("mgfSha").asText()),
                group.get("sLen").asInt(), 1));
          }
          s.initVerify(key);
          s.update(hex.parseHex(t.get("msg").asText()));
          verdict = s.verify(hex.parseHex(t.get("sig").asText())) ? "verified" : "refused";
        } catch (GeneralSecurityException | RuntimeException e) {
          verdict = "refused (" + e.getClass().getSimpleName() + ")";
        }
        boolean verified = verdict.equals("verified");
        if (result.equals("valid") != verified) wrong.add(new Wrong(t.get("tcId").asInt(), result, t.get("comment").asText(), verdict));
      }
    }
    return wrong;
  }

  /** The group's key through the provider's own key factory where it has one, else the JDK's. */
  static PublicKey publicKey(byte[] der, String algorithm, Provider provider) throws GeneralSecurityException {
    String type = algorithm.contains("ECDSA") ? "EC" : algorithm.equals("Ed25519") ? "Ed25519" : algorithm.equals("RSASSA-PSS") ? "RSA" : "RSA";
    try {
      return KeyFactory.getInstance(type, provider).generatePublic(new X509EncodedKeySpec(der));
    } catch (NoSuchAlgorithmException | java.security.spec.InvalidKeySpecException useTheJdks) {
      return KeyFactory.getInstance(type).generatePublic(new X509EncodedKeySpec(der));
    }
  }
}
