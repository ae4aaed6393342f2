package io.pkibench.formats.apispec;

import com.fasterxml.jackson.core.JsonPointer;
import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads an API spec and checks all of it before anything is sent: keys, requests, templates and the
 * names they use (a capture before the step that takes it is refused), files, algorithms and keys
 * of the checks. Every problem is reported at once, each as {@code FILE line N: what, and the fix}.
 */
public final class SpecReader {
  /**
   * The variables every operation has, besides captures, {@code env.NAME} and {@code file.PATH}.
   */
  public static final List<String> BUILT_IN =
      List.of(
          "document", "worker", "seq", "uuid", "csr", "csr.der", Check.X509Check.CSR_KEY, "chain");

  static final List<String> METHODS =
      List.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final int DEFAULT_DOCUMENT_BYTES = 4096;

  /** Headers the JDK's HTTP client writes itself and refuses from a caller. */
  private static final Set<String> CLIENT_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade");

  private final String shown;
  private final Path directory;
  private final List<String> problems = new ArrayList<>();
  private final CheckFiles checkFiles;
  private final Set<String> env = new TreeSet<>();
  private final Set<String> files = new TreeSet<>();
  private boolean usesCsr;
  private boolean signs;

  private SpecReader(String shown, Path directory) {
    this.shown = shown;
    this.directory = directory;
    this.checkFiles = new CheckFiles(directory, this::problem);
  }

  /** The spec in {@code file}; throws with every problem found, one a line. */
  public static ApiSpec read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          file + ": cannot be read (" + e.getMessage() + "); give the API spec's YAML file");
    }
    Path dir = file.toAbsolutePath().getParent();
    return read(text, file.toString(), dir == null ? Path.of(".") : dir);
  }

  /**
   * The spec in {@code text}, named {@code shown} in its problems, its relative paths taken from
   * {@code directory}.
   */
  public static ApiSpec read(String text, String shown, Path directory) {
    SpecReader reader = new SpecReader(shown, directory);
    LocatedYaml top;
    try {
      top = LocatedYaml.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(shown + " " + e.getMessage(), e);
    }
    ApiSpec spec = reader.spec(text, top);
    if (!reader.problems.isEmpty())
      throw new IllegalArgumentException(String.join("\n", reader.problems));
    return spec;
  }

  private void problem(int line, String what) {
    problems.add(shown + " line " + line + ": " + what);
  }

  private ApiSpec spec(String text, LocatedYaml top) {
    if (!top.isMap()) {
      problem(top.line(), "give a map with document, headers, steps and verify");
      return null;
    }
    Map<String, LocatedYaml> keys = top.map();
    unknownKeys(keys, List.of("document", "headers", "steps", "verify"), "the spec");
    ApiSpec.Document document = document(keys.get("document"));
    Set<String> known = new HashSet<>(BUILT_IN);
    Map<String, Template> headers = headers(keys.get("headers"), known);
    LocatedYaml stepsNode = keys.get("steps");
    List<ApiSpec.Step> steps = new ArrayList<>();
    if (stepsNode == null || !stepsNode.isList() || stepsNode.list().isEmpty()) {
      problem(
          stepsNode == null ? top.line() : stepsNode.line(),
          "steps: give a list of steps, e.g. '- request: POST /v1/documents'");
    } else {
      signs = stepsNode.list().stream().anyMatch(s -> s.isMap() && s.map().containsKey("sign"));
      for (LocatedYaml s : stepsNode.list()) {
        ApiSpec.Step step = step(steps.size() + 1, s, known);
        if (step != null) steps.add(step);
      }
    }
    List<Check> checks = new ArrayList<>();
    LocatedYaml verify = keys.get("verify");
    if (verify != null) {
      if (!verify.isList()) problem(verify.line(), "verify: give a list of checks");
      else
        for (LocatedYaml c : verify.list()) {
          Check check = check(c, known);
          if (check != null) checks.add(check);
        }
    }
    return new ApiSpec(text, directory, document, headers, steps, checks, env, files, usesCsr);
  }

  private void unknownKeys(Map<String, LocatedYaml> map, List<String> allowed, String where) {
    map.forEach(
        (k, v) -> {
          if (!allowed.contains(k))
            problem(
                v.line(),
                OutsideText.forTerminal(k)
                    + ": "
                    + where
                    + " has no such key; use "
                    + String.join(", ", allowed));
        });
  }

  private ApiSpec.Document document(LocatedYaml node) {
    if (node == null) return new ApiSpec.Document(DEFAULT_DOCUMENT_BYTES, null, null);
    if (!node.isMap()) {
      problem(node.line(), "document: give {size: BYTES} or {file: PATH}");
      return null;
    }
    unknownKeys(node.map(), List.of("size", "file"), "document");
    LocatedYaml size = node.map().get("size"), file = node.map().get("file");
    if ((size == null) == (file == null)) {
      problem(node.line(), "document: give one of size (random bytes) or file (a file's bytes)");
      return null;
    }
    if (file != null) {
      Path path = checkFiles.readable(file, "document file");
      if (path == null) return null;
      try {
        return new ApiSpec.Document(0, path, Files.readAllBytes(path));
      } catch (IOException e) {
        problem(file.line(), "document file " + path + ": cannot be read (" + e.getMessage() + ")");
        return null;
      }
    }
    int bytes = size.isScalar() ? parseBytes(size.text()) : -1;
    if (bytes < 0) {
      problem(size.line(), "document size: write a size in bytes, like 4096, 137k or 1m");
      return null;
    }
    return new ApiSpec.Document(bytes, null, null);
  }

  /** {@code 1024}, {@code 137k}, {@code 1m} as bytes (binary multiples); -1 when not a size. */
  static int parseBytes(String text) {
    String v = text.strip().toLowerCase(Locale.ROOT);
    int multiplier = v.endsWith("k") ? 1024 : v.endsWith("m") ? 1024 * 1024 : 1;
    String digits = multiplier == 1 ? v : v.substring(0, v.length() - 1);
    try {
      long n = Long.parseLong(digits) * multiplier;
      return n >= 0 && n <= 256L * 1024 * 1024 ? (int) n : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private Map<String, Template> headers(LocatedYaml node, Set<String> known) {
    Map<String, Template> headers = new LinkedHashMap<>();
    if (node == null) return headers;
    if (!node.isMap()) {
      problem(node.line(), "headers: give a map of header names to values");
      return headers;
    }
    node.map()
        .forEach(
            (name, value) -> {
              if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+"))
                problem(
                    value.line(),
                    "header " + OutsideText.forTerminal(name) + ": not a header name");
              if (CLIENT_HEADERS.contains(name.toLowerCase(Locale.ROOT)))
                problem(
                    value.line(),
                    "header "
                        + name
                        + ": the HTTP client sets it itself (from --target, the body, keep-alive); remove it");
              Template t = template(value, known, "header " + name);
              if (t != null) headers.put(name, t);
            });
    return headers;
  }

  /** A scalar parsed as a template whose every name is known here; null (and a problem) if not. */
  private Template template(LocatedYaml node, Set<String> known, String what) {
    if (node == null || !node.isScalar()) {
      problem(node == null ? 0 : node.line(), what + ": give a text value");
      return null;
    }
    Template t;
    try {
      t = Template.parse(node.text());
    } catch (IllegalArgumentException e) {
      problem(node.line(), what + ": " + OutsideText.forTerminal(e.getMessage()));
      return null;
    }
    boolean good = true;
    for (Template.Expression e : t.expressions()) good &= name(node.line(), e.name(), known, what);
    return good ? t : null;
  }

  /** Whether {@code name} can be filled at this point of the spec; a problem when not. */
  private boolean name(int line, String name, Set<String> known, String what) {
    if (name.startsWith("env.")) {
      String variable = name.substring(4);
      if (!NAME.matcher(variable).matches()) {
        problem(
            line,
            what
                + ": ${"
                + OutsideText.forTerminal(name)
                + "}: give env.NAME, NAME of letters, digits and _");
        return false;
      }
      env.add(variable);
      return true;
    }
    if (name.startsWith("file.")) {
      Path path = directory.resolve(name.substring(5));
      if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
        problem(
            line,
            what + ": ${" + OutsideText.forTerminal(name) + "}: no such readable file " + path);
        return false;
      }
      files.add(name.substring(5));
      return true;
    }
    if (name.startsWith("csr")) usesCsr = true;
    if (name.equals("chain") && !signs) {
      problem(
          line,
          what
              + ": ${chain} is the certificate chain of a sign step's key; this spec has no sign step");
      return false;
    }
    if (!known.contains(name)) {
      problem(
          line,
          what
              + ": ${"
              + OutsideText.forTerminal(name)
              + "} is not known here; use a capture of an earlier step, a sign step's 'as', env.NAME, file.PATH or "
              + String.join(", ", BUILT_IN));
      return false;
    }
    return true;
  }

  private ApiSpec.Step step(int index, LocatedYaml node, Set<String> known) {
    if (!node.isMap()) {
      problem(node.line(), "step " + index + ": give a map with request: or sign:");
      return null;
    }
    Map<String, LocatedYaml> keys = node.map();
    if (keys.containsKey("sign")) {
      unknownKeys(keys, List.of("sign"), "a sign step");
      return sign(index, keys.get("sign"), known);
    }
    if (!keys.containsKey("request")) {
      problem(node.line(), "step " + index + ": give request: METHOD PATH or sign: {...}");
      return null;
    }
    unknownKeys(
        keys,
        List.of("request", "headers", "json", "body", "body-file", "expect", "capture"),
        "a request step");
    LocatedYaml request = keys.get("request");
    String method = null;
    Template path = null;
    String[] words = request.isScalar() ? request.text().strip().split("\\s+", 2) : new String[0];
    if (words.length != 2 || !METHODS.contains(words[0]) || !words[1].startsWith("/")) {
      problem(
          request.line(),
          "request: write METHOD PATH, e.g. POST /v1/documents (METHOD one of "
              + String.join(", ", METHODS)
              + ", PATH from / under --target)");
    } else {
      method = words[0];
      path = template(new LocatedYaml(words[1], request.line()), known, "request path");
    }
    Map<String, Template> headers = headers(keys.get("headers"), known);
    ApiSpec.Body body = body(keys, known);
    List<Integer> statuses = expect(keys.get("expect"));
    Map<String, String> captures = captures(keys.get("capture"), known);
    if (method == null || path == null || body == null) return null;
    return new ApiSpec.Request(index, node.line(), method, path, headers, body, statuses, captures);
  }

  private ApiSpec.Body body(Map<String, LocatedYaml> keys, Set<String> known) {
    List<String> given =
        List.of("json", "body", "body-file").stream().filter(keys::containsKey).toList();
    if (given.size() > 1) {
      problem(keys.get(given.get(1)).line(), "give one of json, body or body-file: " + given);
      return null;
    }
    if (given.isEmpty()) return new ApiSpec.NoBody();
    LocatedYaml node = keys.get(given.get(0));
    return switch (given.get(0)) {
      case "json" -> {
        Object tree = json(node, known);
        yield tree == null ? null : new ApiSpec.JsonBody(tree);
      }
      case "body" -> {
        Template t = template(node, known, "body");
        yield t == null ? null : new ApiSpec.TextBody(t);
      }
      default -> {
        Path path = checkFiles.readable(node, "body-file");
        if (path == null) yield null;
        try {
          yield new ApiSpec.FileBody(path, Files.readAllBytes(path));
        } catch (IOException e) {
          problem(node.line(), "body-file " + path + ": cannot be read (" + e.getMessage() + ")");
          yield null;
        }
      }
    };
  }

  /** YAML's tree as a JSON body's: strings become templates; null when any part is bad. */
  private Object json(LocatedYaml node, Set<String> known) {
    if (node.value() == null) return new ApiSpec.JsonLiteral("null");
    if (node.value() instanceof LocatedYaml.Unquoted u) return new ApiSpec.JsonLiteral(u.text());
    if (node.isScalar()) return template(node, known, "json");
    boolean good = true;
    if (node.isList()) {
      List<Object> out = new ArrayList<>();
      for (LocatedYaml item : node.list()) {
        Object v = json(item, known);
        good &= v != null;
        out.add(v);
      }
      return good ? out : null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (var e : node.map().entrySet()) {
      Object v = json(e.getValue(), known);
      good &= v != null;
      out.put(e.getKey(), v);
    }
    return good ? out : null;
  }

  private List<Integer> expect(LocatedYaml node) {
    if (node == null) return List.of();
    if (!node.isMap()) {
      problem(node.line(), "expect: give {status: 201} or {status: [200, 201]}");
      return List.of();
    }
    unknownKeys(node.map(), List.of("status"), "expect");
    LocatedYaml status = node.map().get("status");
    if (status == null) return List.of();
    List<LocatedYaml> items = status.isList() ? status.list() : List.of(status);
    List<Integer> statuses = new ArrayList<>();
    for (LocatedYaml item : items) {
      int code = -1;
      try {
        if (item.isScalar()) code = Integer.parseInt(item.text().strip());
      } catch (NumberFormatException e) {
        code = -1;
      }
      if (code < 100 || code > 599)
        problem(
            item.line(), "expect status: give an HTTP status from 100 to 599, or a list of them");
      else statuses.add(code);
    }
    return statuses;
  }

  private Map<String, String> captures(LocatedYaml node, Set<String> known) {
    Map<String, String> captures = new LinkedHashMap<>();
    if (node == null) return captures;
    if (!node.isMap()) {
      problem(node.line(), "capture: give a map of names to JSON Pointers, e.g. {id: /id}");
      return captures;
    }
    node.map()
        .forEach(
            (name, where) -> {
              if (!newName(where.line(), name, known, "capture")) return;
              String at = where.isScalar() ? where.text().strip() : "";
              if (at.equals("body") || at.startsWith("header:")) {
                captures.put(name, at);
                return;
              }
              try {
                if (!at.startsWith("/")) throw new IllegalArgumentException("not from /");
                JsonPointer.compile(at);
                captures.put(name, at);
              } catch (IllegalArgumentException e) {
                problem(
                    where.line(),
                    "capture "
                        + name
                        + ": give a JSON Pointer (RFC 6901) such as /id or /result/0/signature,"
                        + " 'body' (the whole answer) or 'header:NAME'");
              }
            });
    captures.keySet().forEach(known::add);
    return captures;
  }

  /** A name a step introduces: an identifier not already taken. */
  private boolean newName(int line, String name, Set<String> known, String what) {
    if (!NAME.matcher(name).matches()) {
      problem(
          line,
          what + " " + OutsideText.forTerminal(name) + ": give a name of letters, digits and _");
      return false;
    }
    if (known.contains(name)) {
      problem(
          line,
          what
              + " "
              + name
              + ": the name is taken (a built-in or an earlier capture); choose another");
      return false;
    }
    return true;
  }

  private ApiSpec.Step sign(int index, LocatedYaml node, Set<String> known) {
    if (!node.isMap()) {
      problem(node.line(), "sign: give {input: ..., alg: ..., key: ALIAS, as: NAME}");
      return null;
    }
    Map<String, LocatedYaml> keys = node.map();
    unknownKeys(keys, List.of("input", "alg", "key", "as"), "sign");
    Template input =
        required(keys, "input", node, "sign")
            ? template(keys.get("input"), known, "sign input")
            : null;
    String alg = text(keys, "alg", node, "sign", "a JCA signature algorithm, e.g. SHA256withRSA");
    String key = text(keys, "key", node, "sign", "an alias of --keys, e.g. signer");
    String as = text(keys, "as", node, "sign", "the name the signature is kept as");
    if (as != null && !newName(keys.get("as").line(), as, known, "sign as")) as = null;
    if (input == null || alg == null || key == null || as == null) return null;
    known.add(as);
    return new ApiSpec.Sign(index, node.line(), input, alg, key, as);
  }

  private boolean required(
      Map<String, LocatedYaml> keys, String key, LocatedYaml node, String what) {
    if (keys.containsKey(key)) return true;
    problem(node.line(), what + ": give " + key);
    return false;
  }

  private String text(
      Map<String, LocatedYaml> keys, String key, LocatedYaml node, String what, String hint) {
    LocatedYaml v = keys.get(key);
    if (v == null || !v.isScalar() || v.text().isBlank()) {
      problem(v == null ? node.line() : v.line(), what + ": give " + key + ": " + hint);
      return null;
    }
    return v.text().strip();
  }

  private Check check(LocatedYaml node, Set<String> known) {
    if (!node.isMap() || node.map().size() != 1) {
      problem(
          node.line(), "verify: each check is one of signature, cms, pades, xades, x509: {...}");
      return null;
    }
    var entry = node.map().entrySet().iterator().next();
    LocatedYaml body = entry.getValue();
    String kind = entry.getKey();
    if (!List.of("signature", "cms", "x509", "pades", "xades").contains(kind)) {
      problem(
          body.line(),
          OutsideText.forTerminal(kind)
              + ": no such check; use signature, cms, pades, xades or x509");
      return null;
    }
    if (!body.isMap()) {
      problem(body.line(), kind + ": give a map of its keys");
      return null;
    }
    Map<String, LocatedYaml> keys = body.map();
    int line = body.line();
    return switch (kind) {
      case "signature" -> {
        unknownKeys(keys, List.of("value", "over", "alg", "key"), "signature");
        Template value =
            required(keys, "value", body, kind)
                ? template(keys.get("value"), known, "signature value")
                : null;
        Template over =
            required(keys, "over", body, kind)
                ? template(keys.get("over"), known, "signature over")
                : null;
        String alg =
            text(
                keys,
                "alg",
                body,
                kind,
                "e.g. SHA256withECDSA, SHA256withRSAandMGF1, Ed25519, ML-DSA-65");
        if (alg != null) alg = checkFiles.algorithm(keys.get("alg").line(), alg);
        PublicKey key = checkFiles.publicKey(keys.get("key"), body);
        yield value == null || over == null || alg == null || key == null
            ? null
            : new Check.SignatureCheck(line, value, over, alg, key);
      }
      case "cms" -> {
        unknownKeys(keys, List.of("value", "over", "trust"), "cms");
        Template value =
            required(keys, "value", body, kind)
                ? template(keys.get("value"), known, "cms value")
                : null;
        Template over =
            keys.containsKey("over")
                ? template(keys.get("over"), known, "cms over")
                : Template.parse("${document}");
        CertificateTrust trust = checkFiles.trust(keys.get("trust"), body, kind);
        yield value == null || over == null || trust == null
            ? null
            : new Check.CmsCheck(line, value, over, trust);
      }
      case "pades", "xades" -> {
        unknownKeys(keys, List.of("value", "over", "key", "trust"), kind);
        Template value =
            required(keys, "value", body, kind) ? template(keys.get("value"), known, kind) : null;
        Template over =
            keys.containsKey("over")
                ? template(keys.get("over"), known, kind + " over")
                : Template.parse("${document}");
        yield value == null || over == null ? null : checkFiles.ades(line, kind, value, over, keys);
      }
      default -> {
        unknownKeys(keys, List.of("value", "trust"), "x509");
        Template value =
            required(keys, "value", body, kind)
                ? template(keys.get("value"), known, "x509 value")
                : null;
        CertificateTrust trust = checkFiles.trust(keys.get("trust"), body, kind);
        yield value == null || trust == null
            ? null
            : new Check.X509Check(line, value, trust, usesCsr);
      }
    };
  }
}
