package io.pkibench.formats.apispec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The values a spec reads through {@code ${env.NAME}} and {@code ${file.PATH}}, read once before
 * the run, and the one way text leaves an operation: {@link #blank} replaces each value (and its
 * base64 and hex forms) wherever it appears, so that a service echoing a token into an error, or a
 * spec that also wrote one out, cannot carry it to the result, the report or the terminal.
 */
public final class SpecSecrets {
  /** What a secret's value is replaced with. */
  public static final String BLANK = "***";

  /** Shorter values are not blanked: a 1-character "secret" would blank every such letter. */
  private static final int SHORTEST_BLANKED = 4;

  private final Map<String, byte[]> values;
  private final List<String> texts;

  private SpecSecrets(Map<String, byte[]> values) {
    this.values = Map.copyOf(values);
    List<String> forms = new ArrayList<>();
    for (byte[] v : values.values()) {
      String text = new String(v, StandardCharsets.UTF_8).strip();
      for (String form :
          List.of(
              text,
              new String(Filter.BASE64.apply(v), StandardCharsets.US_ASCII),
              new String(Filter.BASE64URL.apply(v), StandardCharsets.US_ASCII),
              new String(Filter.HEX.apply(v), StandardCharsets.US_ASCII)))
        if (form.length() >= SHORTEST_BLANKED) forms.add(form);
    }
    // longest first: a value that contains another is blanked whole
    forms.sort(Comparator.comparingInt(String::length).reversed());
    this.texts = List.copyOf(forms);
  }

  /**
   * Each {@code env.NAME} from {@code env} and each {@code file.PATH} from its file; throws naming
   * every variable the environment lacks and every file that cannot be read (never a value).
   */
  public static SpecSecrets read(ApiSpec spec, Map<String, String> env) {
    Map<String, byte[]> values = new HashMap<>();
    List<String> problems = new ArrayList<>();
    for (String name : spec.env()) {
      String value = env.get(name);
      if (value == null)
        problems.add(
            "${env."
                + name
                + "} in the API spec: the environment has no "
                + name
                + "; export it before the run");
      else values.put("env." + name, value.getBytes(StandardCharsets.UTF_8));
    }
    for (String path : spec.files()) {
      try {
        values.put("file." + path, Files.readAllBytes(spec.directory().resolve(path)));
      } catch (IOException e) {
        problems.add(
            "${file." + path + "} in the API spec: cannot be read (" + e.getMessage() + ")");
      }
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
    return new SpecSecrets(values);
  }

  /**
   * What {@link #blank} needs for the spec's own text, never refusing: the values {@code env} and
   * the files hold (a missing one has nothing to blank), and every header whose name says it is a
   * credential (Authorization, Cookie, *token*, *key*, *secret*, *password*) written out in full.
   */
  public static SpecSecrets forText(ApiSpec spec, Map<String, String> env) {
    Map<String, byte[]> values = new HashMap<>();
    for (String name : spec.env())
      if (env.get(name) != null)
        values.put("env." + name, env.get(name).getBytes(StandardCharsets.UTF_8));
    for (String path : spec.files()) {
      try {
        values.put("file." + path, Files.readAllBytes(spec.directory().resolve(path)));
      } catch (IOException e) {
        // unreadable now: its value cannot be in anything this run writes
      }
    }
    int n = 0;
    for (Map<String, Template> headers : spec.allHeaders())
      for (var h : headers.entrySet())
        if (CREDENTIAL.matcher(h.getKey()).matches() && h.getValue().expressions().isEmpty())
          values.put("literal." + n++, h.getValue().text().getBytes(StandardCharsets.UTF_8));
    return new SpecSecrets(values);
  }

  private static final Pattern CREDENTIAL =
      Pattern.compile(
          "(?i)authorization|proxy-authorization|cookie|.*(token|key|secret|password).*");

  /** The value of {@code env.NAME} or {@code file.PATH}; null for any other name. */
  public byte[] value(String name) {
    return values.get(name);
  }

  /** {@code text} with every secret value replaced by {@link #BLANK}. */
  public String blank(String text) {
    if (text == null) return null;
    String out = text;
    for (String secret : texts) out = out.replace(secret, BLANK);
    return out;
  }
}
