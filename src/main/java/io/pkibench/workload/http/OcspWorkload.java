package io.pkibench.workload.http;

import io.pkibench.formats.ades.BinaryHttp;
import io.pkibench.formats.ades.OcspCheck;
import io.pkibench.keys.PemKeys;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Any OCSP responder over HTTP ({@code --target}): each operation asks the status of the next of
 * {@code -p cert} (issued by {@code -p issuer}), by POST or by GET (RFC 5019: the base64 request,
 * URL-encoded, after the target's path), with or without a nonce, and checks the answer as {@link
 * OcspCheck} does. Statuses are counted apart (good, revoked, unknown); {@code -p expect} turns a
 * status other than the one expected into a failure.
 */
public final class OcspWorkload implements Workload, CountedOutcomes {
  public static final String REQUEST_TYPE = "application/ocsp-request";
  public static final String REPLY_TYPE = "application/ocsp-response";
  private final URI target;
  private final List<X509Certificate> certificates;
  private final OcspCheck check;
  private final boolean get;
  private final boolean nonce;
  private final String expect;
  private final BinaryHttp http = new BinaryHttp();
  private final Map<OcspCheck.Status, LongAdder> counts = new EnumMap<>(OcspCheck.Status.class);

  private OcspWorkload(
      URI target,
      List<X509Certificate> certificates,
      OcspCheck check,
      boolean get,
      boolean nonce,
      String expect) {
    this.target = target;
    this.certificates = certificates;
    this.check = check;
    this.get = get;
    this.nonce = nonce;
    this.expect = expect;
    for (OcspCheck.Status s : OcspCheck.Status.values()) counts.put(s, new LongAdder());
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "ocsp";
    }

    @Override
    public String description() {
      return "any OCSP responder at --target: status of -p cert (issued by -p issuer), POST or GET, signature, cert id, times and nonce checked";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free(
              ParamSpec.TARGET,
              "",
              "the responder's URL, e.g. http://127.0.0.1:18080/ocsp/intermediate-a ('pkibench serve crl') or http://ocsp.example/"),
          ParamSpec.free(
              "cert",
              "",
              "PEM file(s) of the certificates asked about, comma-separated, used in turn"),
          ParamSpec.free(
              "issuer",
              "",
              "PEM file of the CA that issued them (the certificate ids name it; its key or its delegate signs the answers)"),
          ParamSpec.choice(
              "method",
              "post",
              "POST the DER request, or GET it base64 and URL-encoded in the path (RFC 5019)",
              "post",
              "get"),
          ParamSpec.choice(
              "nonce",
              "true",
              "send a random nonce (the answer must echo it); false for responders that pre-sign",
              "true",
              "false"),
          ParamSpec.free(
              "responder",
              "",
              "PEM file of a responder certificate trusted besides the CA and its delegates"),
          ParamSpec.choice(
              "expect",
              "any",
              "the status every certificate must have; another status counts as a failure",
              "any",
              "good",
              "revoked"));
    }

    @Override
    public boolean usesKeys() {
      return false;
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      HttpTargets.problem(params.get(ParamSpec.TARGET)).ifPresent(problems::add);
      if (params.get("cert").isBlank())
        problems.add(
            "-p cert: give the PEM file of the certificate to ask about, e.g. -p cert=leaf.pem");
      else HttpTargets.certificatesProblem("cert", params.get("cert")).ifPresent(problems::add);
      if (params.get("issuer").isBlank())
        problems.add(
            "-p issuer: give the PEM file of the CA that issued -p cert, e.g. -p issuer=ca.pem");
      else HttpTargets.certificatesProblem("issuer", params.get("issuer")).ifPresent(problems::add);
      if (!params.get("responder").isBlank())
        HttpTargets.certificatesProblem("responder", params.get("responder"))
            .ifPresent(problems::add);
      return problems;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      List<X509Certificate> certificates = new ArrayList<>();
      for (String file : params.get("cert").split(","))
        certificates.addAll(PemKeys.certificates(Files.readAllBytes(Path.of(file.strip()))));
      X509Certificate issuer =
          PemKeys.certificates(Files.readAllBytes(Path.of(params.get("issuer")))).get(0);
      List<X509Certificate> responders =
          params.get("responder").isBlank()
              ? List.of()
              : PemKeys.certificates(Files.readAllBytes(Path.of(params.get("responder"))));
      String target = params.get(ParamSpec.TARGET);
      return new OcspWorkload(
          URI.create(target),
          certificates,
          new OcspCheck(issuer, responders, context.clock()),
          params.get("method").equals("get"),
          Boolean.parseBoolean(params.get("nonce")),
          params.get("expect"));
    }
  }

  @Override
  public Operation newOperation(int worker) {
    SecureRandom random = new SecureRandom();
    byte[] nonceBytes = new byte[16];
    int[] turn = {worker};
    return () -> {
      X509Certificate certificate = certificates.get(turn[0]++ % certificates.size());
      byte[] sent = null;
      if (nonce) {
        random.nextBytes(nonceBytes);
        sent = nonceBytes.clone();
      }
      OcspCheck.Query query = check.query(certificate, sent);
      OcspCheck.Status status = check.check(query, ask(query.der()));
      counts.get(status).increment();
      if (!expect.equals("any") && !status.label().equals(expect)) {
        throw new IOException(
            "expected "
                + expect
                + ", the responder says "
                + status.label()
                + " (serial "
                + OcspCheck.serial(query)
                + ")");
      }
    };
  }

  private byte[] ask(byte[] request) throws IOException {
    try {
      if (!get) return http.post(target, REQUEST_TYPE, request, REPLY_TYPE);
      // RFC 5019 5: {url}/{url-encoding of base-64 encoding of the DER OCSPRequest}
      String base = target.toString().endsWith("/") ? target.toString() : target + "/";
      return http.get(
          URI.create(
              base
                  + URLEncoder.encode(
                      Base64.getEncoder().encodeToString(request), StandardCharsets.US_ASCII)),
          REPLY_TYPE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for " + target);
    }
  }

  @Override
  public Map<String, Long> outcomes() {
    Map<String, Long> out = new LinkedHashMap<>();
    counts.forEach((status, n) -> out.put(status.label(), n.sum()));
    return out;
  }

  @Override
  public void close() {
    http.close();
  }
}
