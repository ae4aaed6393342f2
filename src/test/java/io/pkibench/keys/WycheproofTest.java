package io.pkibench.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.TestProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every provider pkibench offers held to Project Wycheproof's signature vectors (vendored in
 * src/main/resources/wycheproof, source and commit in its README) through {@link Wycheproof}, the
 * check {@code list} and the shoot-out mark providers with: a valid signature verifies, an invalid
 * one (a modified signature, a malleable encoding, a wrong length…) does not. A provider that does
 * not offer an algorithm is said so in the output; ACCP not loading fails the test.
 */
class WycheproofTest {
  /**
   * Deviations seen and named, by provider flag and family: each must stay exactly as listed, so a
   * new one fails and a fixed one is noticed. The JDK's SunEC verifies an ECDSA signature whose DER
   * INTEGER s lacks its leading zero (tcId 6, "MissingZero"): a malleable encoding of a real
   * signature, not a forgery, but one that BouncyCastle and ACCP refuse (JDK 25.0.x).
   */
  static final Map<String, List<Integer>> KNOWN_DEVIATIONS =
      Map.of(
          "jdk ecdsa-p256", List.of(6),
          "jdk ecdsa-p384", List.of(6));

  @Test
  void verify_everyVectorEveryProvider_validVerifyInvalidRefused() {
    TestProvider
        .requireAccp(); // ACCP is one of the providers held to the vectors: where it does not load,
    // say so
    List<String> report = new ArrayList<>();
    for (Wycheproof.Family family : Wycheproof.FAMILIES) {
      int checked = 0;
      for (ProviderChoice choice : ProviderChoice.values()) {
        Wycheproof.Verdict v =
            Wycheproof.verdicts(choice).stream()
                .filter(x -> x.family().equals(family))
                .findFirst()
                .orElseThrow();
        if (!v.offered()) {
          System.out.println(
              "wycheproof "
                  + family.file()
                  + ": "
                  + choice.flag
                  + " offers no "
                  + family.algorithm()
                  + ", not checked");
          continue;
        }
        checked++;
        System.out.println(
            "wycheproof "
                + family.file()
                + " on "
                + choice.flag
                + " ("
                + v.providerName()
                + "): "
                + v.wrong().size()
                + " wrong");
        List<Integer> known =
            KNOWN_DEVIATIONS.getOrDefault(choice.flag + " " + family.alg(), List.of());
        if (!v.wrong().stream().map(Wycheproof.Wrong::tcId).toList().equals(known)) {
          report.add(
              family.file()
                  + " on "
                  + choice.flag
                  + " ("
                  + v.providerName()
                  + "): "
                  + v.wrong().size()
                  + " wrong (known: tcId "
                  + known
                  + "), e.g. "
                  + v.wrong().subList(0, Math.min(5, v.wrong().size())));
        }
      }
      if (checked < 2)
        report.add(family.file() + ": at least two providers checked, " + checked + " were");
    }
    assertEquals(
        List.of(),
        report,
        "every provider agrees with every valid and invalid vector, but the deviations named");
  }

  /**
   * The mark list and the shoot-out show: SunEC's ECDSA deviation marks the JDK for ecdsa keys
   * only; BouncyCastle is clean.
   */
  @Test
  void marks_jdkAcceptsMalleableEcdsa_markedForEcdsaOnly_bcUnmarked() {
    assertEquals(
        List.of("ecdsa-p256: accepts 1 invalid vector (tcId 6)"),
        Wycheproof.marks(ProviderChoice.JDK, "ecdsa-p256"));
    assertEquals(
        List.of(),
        Wycheproof.marks(ProviderChoice.JDK, "rsa2048"),
        "the JDK's RSA agrees with every vector");
    assertEquals(
        List.of(
            "ecdsa-p256: accepts 1 invalid vector (tcId 6)",
            "ecdsa-p384: accepts 1 invalid vector (tcId 6)"),
        Wycheproof.marks(ProviderChoice.JDK, null),
        "no key type named: every family's marks");
    assertEquals(List.of(), Wycheproof.marks(ProviderChoice.BC, null));
  }

  @Test
  void verdict_markNamesWhatWasAcceptedAndWhatRejected() {
    var family = Wycheproof.FAMILIES.get(0);
    var v =
        new Wycheproof.Verdict(
            ProviderChoice.BC,
            family,
            "BC",
            List.of(
                new Wycheproof.Wrong(3, "invalid", "x", "verified"),
                new Wycheproof.Wrong(9, "valid", "y", "refused"),
                new Wycheproof.Wrong(10, "valid", "z", "refused (SignatureException)")));
    assertTrue(v.marked());
    assertEquals(
        "rsa2048: accepts 1 invalid vector (tcId 3), rejects 2 valid vectors (tcId 9, 10)",
        v.mark());
    assertEquals("", new Wycheproof.Verdict(ProviderChoice.BC, family, "BC", List.of()).mark());
  }
}
