package io.pkibench.results;

import io.pkibench.keys.Wycheproof;
import java.util.List;

/**
 * A key source's own verifier put to Project Wycheproof's vectors while the run had it open (a
 * PKCS#11 token, which a report made later cannot reach): the provider that verified, the key types
 * checked, and each mark, e.g. "ecdsa-p256: accepts 1 invalid vector (tcId 6)" (none: it agrees
 * with every vector checked).
 */
public record WycheproofCheck(String provider, List<String> checked, List<String> marks) {
  public WycheproofCheck {
    checked = List.copyOf(checked);
    marks = List.copyOf(marks);
  }

  public static WycheproofCheck of(List<Wycheproof.Verdict> verdicts) {
    String provider =
        verdicts.stream().map(Wycheproof.Verdict::providerName).findFirst().orElse(null);
    return new WycheproofCheck(
        provider,
        verdicts.stream().map(v -> v.family().alg()).toList(),
        verdicts.stream()
            .filter(Wycheproof.Verdict::marked)
            .map(Wycheproof.Verdict::mark)
            .toList());
  }
}
