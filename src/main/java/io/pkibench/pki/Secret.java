package io.pkibench.pki;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * A password or PIN, read from a file or an environment variable, never from a flag value; never
 * printed.
 */
public final class Secret {
  private final char[] value;

  private Secret(char[] value) {
    this.value = value;
  }

  public static Secret of(char[] value) {
    return new Secret(value.clone());
  }

  /** The first line of {@code file} (trailing newline dropped). */
  public static Secret fromFile(Path file) throws IOException {
    String text =
        new String(
            InputFiles.read(file, 64 * 1024, "a password or PIN file"), StandardCharsets.UTF_8);
    int end = text.indexOf('\n');
    String line = end < 0 ? text : text.substring(0, end);
    if (line.endsWith("\r")) line = line.substring(0, line.length() - 1);
    return new Secret(line.toCharArray());
  }

  /**
   * From {@code file} when given, else from the environment variable {@code envName}; explains both
   * when neither has it.
   */
  public static Secret from(Path file, Map<String, String> env, String envName, String what)
      throws IOException {
    if (file != null) return fromFile(file);
    String v = env.get(envName);
    if (v != null) return new Secret(v.toCharArray());
    throw new IllegalArgumentException(
        what
            + " is needed: put it in a file and pass --pin-file FILE, or set the environment variable "
            + envName);
  }

  public char[] chars() {
    return value.clone();
  }

  @Override
  public String toString() {
    return "Secret[****]";
  }

  public void wipe() {
    Arrays.fill(value, '\0');
  }
}
