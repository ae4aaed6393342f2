package io.pkibench.study;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.results.RunResultJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Security;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What IBM measured and today's JDK refuses by default (TLS 1.0, RSA key exchange, RC4, 3DES),
 * allowed again for JSSE inside the ssl study's own JVMs only: its JSSE service JVMs and the forked
 * JVMs its JSSE client runs in get a security properties file ({@code -Djava.security.properties})
 * whose {@code jdk.tls.disabledAlgorithms} is the JDK's own list without {@link #ALLOWED}. The
 * pkibench process itself keeps the JDK's defaults (a JVM reads the list once, so it could not be
 * undone), and so does every other study and command.
 */
final class LegacyTls {
  static final String PROPERTY = "jdk.tls.disabledAlgorithms";

  /**
   * The entries taken out of the JDK's list: exactly what the original's suites need, nothing more
   * (TLS 1.1, MD5withRSA, DES… stay off).
   */
  static final List<String> ALLOWED = List.of("TLSv1", "RC4", "3DES_EDE_CBC", "TLS_RSA_*");

  /** How the child JVM answers each attempt: this prefix, then one JSON object. */
  static final String LINE_PREFIX = "pkibench.tls-attempt/1 ";

  private LegacyTls() {}

  /** The JDK's disabled list (as this JVM read it from java.security) without {@link #ALLOWED}. */
  static String disabledAlgorithms() {
    String jdk = Security.getProperty(PROPERTY);
    if (jdk == null) return "";
    return String.join(
        ", ",
        Arrays.stream(jdk.split(","))
            .map(String::trim)
            .filter(e -> !e.isEmpty() && !ALLOWED.contains(e))
            .toList());
  }

  /**
   * Writes the security properties file (a temporary file, removed when this JVM exits) and returns
   * the JVM option that names it.
   */
  static String jvmOption() {
    try {
      Path file = Files.createTempFile("pkibench-ssl-legacy-", ".security");
      file.toFile().deleteOnExit();
      Files.writeString(
          file,
          "# pkibench study ssl: the original's TLS 1.0, RSA key exchange, RC4 and 3DES, for this study's JVMs only\n"
              + PROPERTY
              + "="
              + disabledAlgorithms()
              + "\n");
      return "-Djava.security.properties=" + file;
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot write the ssl study's security properties file: " + e.getMessage(), e);
    }
  }

  /** The report's sentence: what was allowed, where, and that nothing else was. */
  static String note() {
    return "JSSE: "
        + String.join(", ", ALLOWED)
        + " taken out of "
        + PROPERTY
        + " for this study's own JVMs only (its JSSE service"
        + " JVMs and the forked JVMs its JSSE client runs in, through -Djava.security.properties); the pkibench process and every other"
        + " command keep the JDK's list; BoringSSL reads no Java security property and is as built";
  }

  /**
   * {@code attempts} of {@code engine} in a fresh JVM of this program started with {@code
   * jvmOption}: each back with its suite as the engine names it there and its refusal (null: it
   * worked). A child that cannot answer refuses every attempt, saying why.
   */
  static List<Outcome> inChild(
      List<String> javaCommand,
      String jvmOption,
      Path pkiDir,
      TlsEngine engine,
      List<TlsAttempt> attempts) {
    List<String> cmd = new ArrayList<>(javaCommand.subList(0, 1));
    cmd.add(jvmOption);
    cmd.addAll(javaCommand.subList(1, javaCommand.size()));
    cmd.addAll(List.of("tls-attempt", "--engine", engine.flag, "--pki", pkiDir.toString()));
    for (TlsAttempt a : attempts)
      cmd.addAll(List.of("--try", a.keyFlag() + "," + a.protocol() + "," + a.suite()));
    List<Outcome> outcomes = new ArrayList<>();
    List<String> other = new ArrayList<>();
    try {
      Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (!line.startsWith(LINE_PREFIX)) {
            if (other.size() < 5) other.add(line);
            continue;
          }
          JsonNode n = RunResultJson.mapper().readTree(line.substring(LINE_PREFIX.length()));
          outcomes.add(
              new Outcome(
                  new TlsAttempt(
                      engine,
                      n.get("key").asText(),
                      n.get("protocol").asText(),
                      n.get("suite").asText()),
                  n.hasNonNull("refusal") ? n.get("refusal").asText() : null));
        }
      }
      if (!child.waitFor(60, TimeUnit.SECONDS)) child.destroyForcibly();
    } catch (IOException e) {
      other.add(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      other.add("interrupted");
    }
    if (outcomes.size() == attempts.size()) return outcomes;
    String why =
        "the JVM that tries "
            + engine.flag
            + " with the legacy security properties did not answer"
            + (other.isEmpty() ? "" : ": " + String.join(" | ", other));
    return attempts.stream().map(a -> new Outcome(a, why)).toList();
  }

  /** An attempt (its suite in the engine's own name) and what refused it, or null. */
  record Outcome(TlsAttempt attempt, String refusal) {}
}
