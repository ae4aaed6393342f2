package io.pkibench.keys;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Project Wycheproof's signature vectors (vendored under {@code /wycheproof} in the jar; source,
 * commit and licence in its README) put to a provider pkibench offers: a valid signature must
 * verify, an invalid one (a modified signature, a malleable encoding, a wrong length…) must not;
 * "acceptable" ones may go either way. A provider that gets any wrong is marked where providers are
 * listed or compared ({@code list}, the shoot-out) and never recommended. The vectors run only when
 * asked, once per provider and process (about a second each): a run that never lists or compares
 * providers pays nothing.
 */
public final class Wycheproof {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One file of vectors, the pkibench key type ({@code -p alg}) it stands for, and the JCA
   * signature algorithm.
   */
  public record Family(String alg, String file, String algorithm) {}

  public static final List<Family> FAMILIES =
      List.of(
          new Family("rsa2048", "rsa_signature_2048_sha256_test", "SHA256withRSA"),
          new Family("rsa3072", "rsa_signature_3072_sha256_test", "SHA256withRSA"),
          new Family("rsa2048-pss", "rsa_pss_2048_sha256_mgf1_32_test", "RSASSA-PSS"),
          new Family("ecdsa-p256", "ecdsa_secp256r1_sha256_test", "SHA256withECDSA"),
          new Family("ecdsa-p384", "ecdsa_secp384r1_sha384_test", "SHA384withECDSA"),
          new Family("ed25519", "ed25519_test", "Ed25519"));

  /** A provider's verdict on one vector that contradicts the vector. */
  public record Wrong(int tcId, String result, String comment, String verdict) {
    public boolean acceptedInvalid() {
      return verdict.equals("verified");
    }

    @Override
    public String toString() {
      return "tcId " + tcId + " (" + result + ", " + comment + "): " + verdict;
    }
  }

  /**
   * What one provider made of one family; {@code wrong} is null when the provider does not offer
   * the algorithm; {@code provider} is null for a key source's own verifier (a token), named by
   * {@code providerName}.
   */
  public record Verdict(
      ProviderChoice provider, Family family, String providerName, List<Wrong> wrong) {
    public boolean offered() {
      return wrong != null;
    }

    public boolean marked() {
      return wrong != null && !wrong.isEmpty();
    }

    /**
     * E.g. "ecdsa-p256: accepts 1 invalid vector (tcId 6)"; empty when the provider agrees with
     * every vector.
     */
    public String mark() {
      if (!marked()) return "";
      List<Integer> accepted =
          wrong.stream().filter(Wrong::acceptedInvalid).map(Wrong::tcId).toList();
      List<Integer> rejected =
          wrong.stream().filter(w -> !w.acceptedInvalid()).map(Wrong::tcId).toList();
      List<String> parts = new ArrayList<>();
      if (!accepted.isEmpty()) parts.add("accepts " + count(accepted, "invalid"));
      if (!rejected.isEmpty()) parts.add("rejects " + count(rejected, "valid"));
      return family.alg() + ": " + String.join(", ", parts);
    }

    private static String count(List<Integer> tcIds, String kind) {
      String ids =
          tcIds.subList(0, Math.min(5, tcIds.size())).toString().replaceAll("[\\[\\]]", "")
              + (tcIds.size() > 5 ? ", …" : "");
      return tcIds.size()
          + " "
          + kind
          + " vector"
          + (tcIds.size() == 1 ? "" : "s")
          + " (tcId "
          + ids
          + ")";
    }
  }

  /**
   * Each provider's verdicts, made once: the vectors do not change while a process runs, nor do the
   * providers.
   */
  private static final Map<ProviderChoice, List<Verdict>> VERDICTS = new ConcurrentHashMap<>();

  private static final Map<String, JsonNode> FILES = new ConcurrentHashMap<>();

  private Wycheproof() {}

  /** {@code choice}'s verdict on every family, in {@link #FAMILIES} order (run on first use). */
  public static List<Verdict> verdicts(ProviderChoice choice) {
    return VERDICTS.computeIfAbsent(
        choice, c -> FAMILIES.stream().map(f -> verdict(c, f)).toList());
  }

  /**
   * The marks of {@code choice} for the key type {@code alg} (e.g. "ecdsa-p256"), or for every
   * family when {@code alg} is null or has no vectors here; empty when the provider agrees with
   * every vector that applies.
   */
  public static List<String> marks(ProviderChoice choice, String alg) {
    boolean known = alg != null && FAMILIES.stream().anyMatch(f -> f.alg().equals(alg));
    return verdicts(choice).stream()
        .filter(v -> !known || v.family().alg().equals(alg))
        .filter(Verdict::marked)
        .map(Verdict::mark)
        .toList();
  }

  /**
   * The verdicts of {@code source}'s own verifier (a PKCS#11 token: SunPKCS11 hands each vector to
   * the token's C_Verify) on the family of the key type {@code alg} (none when it has no vectors
   * here), or on every family when {@code alg} is null; a family the source does not offer is left
   * out. Run each time (a token is opened per run, and the report cannot reach it afterwards), so a
   * run records what it found; {@link Verdict#provider()} is null.
   */
  public static List<Verdict> verdicts(KeySource source, String alg) {
    List<Verdict> verdicts = new ArrayList<>();
    for (Family family : FAMILIES) {
      if (alg != null && !family.alg().equals(alg)) continue;
      Provider provider;
      try {
        provider = source.provider("Signature", family.algorithm());
      } catch (GeneralSecurityException notOffered) {
        continue;
      }
      try {
        verdicts.add(
            new Verdict(
                null,
                family,
                provider.getName(),
                verifyAll(vectors(family.file()), family.algorithm(), provider)));
      } catch (GeneralSecurityException cannotTakeTheKeys) {
        // the token cannot even take the vectors' public keys of this family: it does not offer it
      }
    }
    return verdicts;
  }

  static Verdict verdict(ProviderChoice choice, Family family) {
    Provider provider;
    try {
      provider = choice.providerFor("Signature", family.algorithm());
    } catch (GeneralSecurityException | RuntimeException notOffered) {
      return new Verdict(choice, family, null, null);
    }
    try {
      return new Verdict(
          choice,
          family,
          provider.getName(),
          verifyAll(vectors(family.file()), family.algorithm(), provider));
    } catch (GeneralSecurityException e) {
      return new Verdict(
          choice,
          family,
          provider.getName(),
          null); // the provider cannot even take the vectors' keys: not offered
    }
  }

  /** The vendored file {@code name}.json, checked to hold every test it announces. */
  public static JsonNode vectors(String name) {
    return FILES.computeIfAbsent(
        name,
        n -> {
          try (InputStream in =
              Wycheproof.class.getResourceAsStream("/wycheproof/" + n + ".json")) {
            if (in == null)
              throw new IllegalStateException(
                  "no vendored Wycheproof vectors /wycheproof/" + n + ".json in the jar");
            JsonNode tree = JSON.readTree(in);
            int tests = 0;
            for (JsonNode g : tree.get("testGroups")) tests += g.get("tests").size();
            if (tests != tree.get("numberOfTests").asInt()) {
              throw new IllegalStateException(
                  "/wycheproof/"
                      + n
                      + ".json holds "
                      + tests
                      + " tests, not the "
                      + tree.get("numberOfTests").asInt()
                      + " it announces");
            }
            return tree;
          } catch (IOException e) {
            throw new UncheckedIOException(
                "cannot read the vendored Wycheproof vectors " + n + ".json", e);
          }
        });
  }

  /**
   * Every vector of {@code vectors} the provider judges against the vector's own result
   * ("acceptable" ones skipped).
   */
  public static List<Wrong> verifyAll(JsonNode vectors, String algorithm, Provider provider)
      throws GeneralSecurityException {
    List<Wrong> wrong = new ArrayList<>();
    HexFormat hex = HexFormat.of();
    for (JsonNode group : vectors.get("testGroups")) {
      PublicKey key =
          publicKey(hex.parseHex(group.get("publicKeyDer").asText()), algorithm, provider);
      for (JsonNode t : group.get("tests")) {
        String result = t.get("result").asText();
        if (result.equals("acceptable")) continue;
        String verdict;
        try {
          Signature s = Signature.getInstance(algorithm, provider);
          if (algorithm.equals("RSASSA-PSS")) {
            s.setParameter(
                new PSSParameterSpec(
                    group.get("sha").asText(),
                    "MGF1",
                    new MGF1ParameterSpec(group.get("mgfSha").asText()),
                    group.get("sLen").asInt(),
                    1));
          }
          s.initVerify(key);
          s.update(hex.parseHex(t.get("msg").asText()));
          verdict = s.verify(hex.parseHex(t.get("sig").asText())) ? "verified" : "refused";
        } catch (GeneralSecurityException | RuntimeException e) {
          verdict = "refused (" + e.getClass().getSimpleName() + ")";
        }
        if (result.equals("valid") != verdict.equals("verified"))
          wrong.add(new Wrong(t.get("tcId").asInt(), result, t.get("comment").asText(), verdict));
      }
    }
    return wrong;
  }

  /** The group's key through the provider's own key factory where it has one, else the JDK's. */
  static PublicKey publicKey(byte[] der, String algorithm, Provider provider)
      throws GeneralSecurityException {
    String type =
        algorithm.contains("ECDSA") ? "EC" : algorithm.equals("Ed25519") ? "Ed25519" : "RSA";
    try {
      return KeyFactory.getInstance(type, provider).generatePublic(new X509EncodedKeySpec(der));
    } catch (NoSuchAlgorithmException | InvalidKeySpecException useTheJdks) {
      return KeyFactory.getInstance(type).generatePublic(new X509EncodedKeySpec(der));
    }
  }
}
