package io.pkibench.cli;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Each PKCS#11 token of {@code --keys} opened (and logged in to) once before the run: a missing
 * config or a wrong PIN is bad input, exit 2 with nothing run, not a workload that "could not run"
 * in a result written after it.
 */
final class TokenCheck {
  private TokenCheck() {}

  static List<String> problems(CliContext ctx, String keys, Path pinFile) {
    List<String> problems = new ArrayList<>();
    Set<String> tokens = new LinkedHashSet<>();
    for (String spec : keys.split(","))
      if (spec.strip().startsWith("pkcs11:") && spec.strip().length() > "pkcs11:".length())
        tokens.add(spec.strip());
    Path pin = pinFile == null ? null : ctx.resolve(pinFile);
    for (String spec : tokens) {
      String config = spec.substring("pkcs11:".length());
      try (KeySource source =
          KeySources.open(
              "pkcs11:" + ctx.resolve(Path.of(config)),
              () -> null,
              pin,
              ctx.env(),
              ctx.clock(),
              line -> {})) {
        // opened and logged in: the run will open it again, each workload its own
      } catch (GeneralSecurityException
          | IOException
          | UncheckedIOException
          | IllegalArgumentException e) {
        String said = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        problems.add(
            OutsideText.forTerminal(
                said.startsWith("--keys") ? said : "--keys " + spec + ": " + said));
      }
    }
    return problems;
  }
}
