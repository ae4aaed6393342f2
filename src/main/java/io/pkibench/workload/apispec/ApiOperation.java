package io.pkibench.workload.apispec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.formats.apispec.ApiSpec;
import io.pkibench.formats.apispec.Check;
import io.pkibench.formats.apispec.Template;
import io.pkibench.keys.SigningKey;
import io.pkibench.text.FailureCause;
import io.pkibench.workload.api.Operation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * One worker's operations of the {@code api} workload: its own HTTP/1.1 client (so its connections
 * are kept alive for it alone), its document bytes and counter; each operation runs the steps in
 * order, then the checks, and fails at the first that does not hold, naming it.
 */
final class ApiOperation implements Operation {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ApiWorkload workload;
  private final HttpClient http;
  private final int worker;
  private final SplittableRandom random;
  private final byte[] document;
  private long seq;

  ApiOperation(ApiWorkload workload, HttpClient http, int worker) {
    this.workload = workload;
    this.http = http;
    this.worker = worker;
    this.random = new SplittableRandom(0x5eed_0000L + worker);
    ApiSpec.Document d = workload.spec().document();
    this.document = d.fixed() != null ? d.fixed() : new byte[d.sizeBytes()];
  }

  @Override
  public void execute() throws Exception {
    if (workload.spec().document().fixed() == null) random.nextBytes(document);
    Values values = new Values(seq++);
    for (ApiSpec.Step step : workload.spec().steps()) {
      try {
        switch (step) {
          case ApiSpec.Request r -> request(r, values);
          case ApiSpec.Sign s -> sign(s, values);
        }
      } catch (StepFailure | InterruptedException e) {
        throw e;
      } catch (Exception e) {
        throw failure(step.name(), why(e));
      }
    }
    for (Check check : workload.spec().checks()) {
      try {
        check.verify(values);
      } catch (Exception e) {
        throw failure(check.name(), why(e));
      }
    }
  }

  /**
   * The words of a check or template that failed (they say what did not hold), else the cause as a
   * person reads it ("connection refused (ConnectException)").
   */
  private static String why(Exception e) {
    boolean ours =
        e instanceof GeneralSecurityException
            || e instanceof IllegalArgumentException
            || e instanceof IllegalStateException;
    return ours && e.getMessage() != null ? e.getMessage() : FailureCause.sentenceOf(e);
  }

  private StepFailure failure(String where, String why) {
    return new StepFailure(where + ": " + workload.secrets().blank(why));
  }

  private void request(ApiSpec.Request step, Values values) throws Exception {
    URI uri = workload.uri(step.path().renderText(values));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(workload.timeout())
            .version(HttpClient.Version.HTTP_1_1);
    boolean typed = false;
    for (var h : workload.spec().headers().entrySet()) {
      request.header(h.getKey(), h.getValue().renderText(values));
      typed |= h.getKey().equalsIgnoreCase("content-type");
    }
    for (var h : step.headers().entrySet()) {
      request.setHeader(h.getKey(), h.getValue().renderText(values));
      typed |= h.getKey().equalsIgnoreCase("content-type");
    }
    byte[] body =
        switch (step.body()) {
          case ApiSpec.NoBody n -> null;
          case ApiSpec.JsonBody j -> json(j.tree(), values);
          case ApiSpec.TextBody t -> t.text().render(values);
          case ApiSpec.FileBody f -> f.bytes();
        };
    if (body != null && !typed)
      request.header(
          "Content-Type",
          step.body() instanceof ApiSpec.JsonBody
              ? "application/json"
              : step.body() instanceof ApiSpec.TextBody
                  ? "text/plain; charset=utf-8"
                  : "application/octet-stream");
    request.method(
        step.method(),
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    HttpResponse<byte[]> answer =
        http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    int status = answer.statusCode();
    boolean expected =
        step.statuses().isEmpty() ? status / 100 == 2 : step.statuses().contains(status);
    if (!expected)
      throw failure(
          step.name(),
          "expected status "
              + (step.statuses().isEmpty() ? "2xx" : join(step.statuses()))
              + ", answered "
              + status);
    JsonNode tree = null;
    for (var c : step.captures().entrySet()) {
      String where = c.getValue();
      byte[] value;
      if (where.equals("body")) value = answer.body();
      else if (where.startsWith("header:")) {
        String name = where.substring("header:".length()).strip();
        value =
            answer
                .headers()
                .firstValue(name)
                .orElseThrow(
                    () ->
                        failure(
                            step.name(),
                            "capture " + c.getKey() + ": the answer has no " + name + " header"))
                .getBytes(StandardCharsets.UTF_8);
      } else {
        if (tree == null) {
          try {
            tree = JSON.readTree(answer.body());
          } catch (IOException e) {
            throw failure(
                step.name(),
                "capture "
                    + c.getKey()
                    + ": the answer is not JSON ("
                    + answer.body().length
                    + " bytes)");
          }
        }
        JsonNode node = tree == null ? null : tree.at(JsonPointer.compile(where));
        if (node == null || node.isMissingNode())
          throw failure(
              step.name(), "capture " + c.getKey() + ": the answer has nothing at " + where);
        value =
            (node.isValueNode() ? node.asText() : JSON.writeValueAsString(node))
                .getBytes(StandardCharsets.UTF_8);
      }
      values.put(c.getKey(), value);
    }
  }

  private static String join(List<Integer> statuses) {
    return String.join(" or ", statuses.stream().map(String::valueOf).toList());
  }

  private void sign(ApiSpec.Sign step, Values values) throws Exception {
    SigningKey key = workload.signingKey(step.key());
    Signature signer = Signature.getInstance(step.algorithm(), key.provider());
    signer.initSign(key.privateKey());
    signer.update(step.input().render(values));
    values.put(step.as(), signer.sign());
  }

  /** The JSON of a body tree, each template rendered as a JSON string. */
  private static byte[] json(Object tree, Values values) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      write(g, tree, values);
    }
    return out.toByteArray();
  }

  private static void write(JsonGenerator g, Object node, Values values) throws IOException {
    switch (node) {
      case Template t -> g.writeString(t.renderText(values));
      case ApiSpec.JsonLiteral l -> g.writeRawValue(l.json());
      case Map<?, ?> map -> {
        g.writeStartObject();
        for (var e : map.entrySet()) {
          g.writeFieldName((String) e.getKey());
          write(g, e.getValue(), values);
        }
        g.writeEndObject();
      }
      case List<?> list -> {
        g.writeStartArray();
        for (Object item : list) write(g, item, values);
        g.writeEndArray();
      }
      default -> throw new IllegalStateException("not a JSON body node: " + node.getClass());
    }
  }

  /** One operation's variables: fixed ones made when first asked for, captures as they come. */
  private final class Values implements Template.Values {
    private final long seq;
    private final Map<String, byte[]> captured = new HashMap<>();
    private CsrPool.Csr csr;
    private byte[] uuid;

    Values(long seq) {
      this.seq = seq;
    }

    void put(String name, byte[] value) {
      captured.put(name, value);
    }

    @Override
    public byte[] value(String name) {
      byte[] v = captured.get(name);
      if (v != null) return v;
      switch (name) {
        case "document":
          return document;
        case "worker":
          return ascii(Integer.toString(worker));
        case "seq":
          return ascii(Long.toString(seq));
        case "uuid":
          if (uuid == null) uuid = ascii(UUID.randomUUID().toString());
          return uuid;
        case "chain":
          return workload.chainPem();
        case "csr", "csr.der", Check.X509Check.CSR_KEY:
          if (csr == null) {
            try {
              csr = workload.csrs().next(worker, seq);
            } catch (IOException e) {
              throw new IllegalStateException(e.getMessage(), e);
            }
          }
          return name.equals("csr")
              ? csr.pem()
              : name.equals("csr.der") ? csr.der() : csr.publicKey();
        default:
          byte[] secret = workload.secrets().value(name);
          if (secret != null) return secret;
          throw new IllegalStateException("${" + name + "} has no value in this operation");
      }
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
