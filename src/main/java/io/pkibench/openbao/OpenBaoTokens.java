package io.pkibench.openbao;

import io.pkibench.pki.Secret;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where an OpenBao token is read from: a file ({@code token-file=F}) or an environment variable
 * ({@code token-env=VAR}, by default {@code BAO_TOKEN}, then {@code VAULT_TOKEN}); never from a
 * command line.
 */
public final class OpenBaoTokens {
  public static final String DEFAULT_ENV = "BAO_TOKEN";

  private OpenBaoTokens() {}

  /**
   * The token; {@code flag} is how the caller names its options in the error ({@code --keys
   * openbao:…} or {@code -p}).
   */
  public static Secret read(String file, String envName, Map<String, String> env, String flag)
      throws IOException {
    if (file != null && !file.isBlank()) return Secret.fromFile(Path.of(file));
    String name = envName == null || envName.isBlank() ? DEFAULT_ENV : envName;
    String value = env.get(name);
    if ((value == null || value.isBlank()) && (envName == null || envName.isBlank()))
      value = env.get("VAULT_TOKEN");
    if (value == null || value.isBlank())
      throw new IllegalArgumentException(
          flag
              + ": no OpenBao token: set the environment variable "
              + name
              + (envName == null || envName.isBlank() ? " (or VAULT_TOKEN)" : "")
              + ", or name a file holding it with token-file=FILE (serve openbao writes its root token to one)");
    return Secret.of(value.toCharArray());
  }
}
