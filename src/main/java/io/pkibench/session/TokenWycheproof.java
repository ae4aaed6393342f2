package io.pkibench.session;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.Wycheproof;
import io.pkibench.results.WycheproofCheck;
import io.pkibench.workload.api.Params;
import java.util.function.Consumer;

/**
 * A PKCS#11 token put to Project Wycheproof's vectors for the workload's key type before a run
 * verifies through it: only the run has the token open, so the result records the verdict for the
 * report and the shoot-out, and the log says it when the token gets any vector wrong.
 */
final class TokenWycheproof {
  private TokenWycheproof() {}

  /**
   * The token's verdict on {@code -p alg}'s vectors; null when there are none for it, or the token
   * does not verify it.
   */
  static WycheproofCheck check(KeySource token, Params params, Consumer<String> log) {
    String alg = params.asMap().get("alg");
    if (alg == null) return null;
    WycheproofCheck check = WycheproofCheck.of(Wycheproof.verdicts(token, alg));
    if (check.checked().isEmpty()) return null;
    if (check.marks().isEmpty()) {
      log.accept(token.describe() + ": agrees with every Project Wycheproof vector for " + alg);
    } else {
      log.accept(
          "! "
              + token.describe()
              + " ("
              + check.provider()
              + "): Project Wycheproof "
              + String.join("; ", check.marks())
              + " - not recommended for "
              + alg);
    }
    return check;
  }
}
