package io.pkibench.formats.apispec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An API spec as read and checked ({@link SpecReader}): what each operation sends, expects and
 * captures, step by step, and what it checks of the answers at the end. {@code text} is the file as
 * written; {@code directory} the one its relative paths start from; {@code env} and {@code files}
 * the secrets its templates read ({@code ${env.NAME}}, {@code ${file.PATH}}), whose values must
 * never leave the process.
 */
public record ApiSpec(
    String text,
    Path directory,
    Document document,
    Map<String, Template> headers,
    List<Step> steps,
    List<Check> checks,
    Set<String> env,
    Set<String> files,
    boolean usesCsr) {
  public ApiSpec {
    headers = Map.copyOf(headers);
    steps = List.copyOf(steps);
    checks = List.copyOf(checks);
    env = Set.copyOf(env);
    files = Set.copyOf(files);
  }

  /** The spec's headers, then each request's own. */
  public List<Map<String, Template>> allHeaders() {
    List<Map<String, Template>> all = new ArrayList<>(List.of(headers));
    for (Step s : steps) if (s instanceof Request r) all.add(r.headers());
    return all;
  }

  /** The aliases of {@code --keys} the sign steps use, in order of first use. */
  public List<String> signingKeys() {
    return steps.stream()
        .filter(Sign.class::isInstance)
        .map(s -> ((Sign) s).key())
        .distinct()
        .toList();
  }

  /**
   * {@code ${document}}: {@code sizeBytes} random bytes, new for each operation, or a file's bytes
   * ({@code file} set) sent every time.
   */
  public record Document(int sizeBytes, Path file, byte[] fixed) {}

  /** One step of an operation; {@code name} says which in a failure, without any value. */
  public sealed interface Step permits Request, Sign {
    int line();

    String name();
  }

  /**
   * {@code request: METHOD PATH}: sent with the spec's headers and its own, the answer's status one
   * of {@code statuses} (empty: any 2xx), then each capture taken from it.
   */
  public record Request(
      int index,
      int line,
      String method,
      Template path,
      Map<String, Template> headers,
      Body body,
      List<Integer> statuses,
      Map<String, String> captures)
      implements Step {
    public Request {
      headers = Map.copyOf(headers);
      statuses = List.copyOf(statuses);
      captures = Map.copyOf(captures);
    }

    @Override
    public String name() {
      return "step " + index + " (" + method + " " + path.text() + ", line " + line + ")";
    }
  }

  /**
   * {@code sign:} a signature made here with {@code key}, an alias of {@code --keys}, over {@code
   * input}, kept as {@code as}: the local half of a two-phase API.
   */
  public record Sign(int index, int line, Template input, String algorithm, String key, String as)
      implements Step {
    @Override
    public String name() {
      return "step " + index + " (sign with " + key + ", line " + line + ")";
    }
  }

  /** What a request sends: nothing, JSON built from a template tree, text, or a file's bytes. */
  public sealed interface Body permits NoBody, JsonBody, TextBody, FileBody {}

  public record NoBody() implements Body {}

  /**
   * {@code json:}: maps, lists and scalars as YAML wrote them, each string a {@link Template} and
   * each other scalar ({@code 3}, {@code true}) kept as JSON writes it.
   */
  public record JsonBody(Object tree) implements Body {}

  public record TextBody(Template text) implements Body {}

  public record FileBody(Path file, byte[] bytes) implements Body {}

  /** A scalar of a JSON body that YAML did not quote as a string: a number, true, false, null. */
  public record JsonLiteral(String json) {}
}
