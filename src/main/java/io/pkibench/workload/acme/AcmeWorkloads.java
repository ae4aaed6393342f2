package io.pkibench.workload.acme;

import io.pkibench.keys.PemKeys;
import io.pkibench.keys.TlsContexts;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * The ACME (RFC 8555) workloads, {@code acme:KIND}, against a CA's directory at {@code --target}:
 * Pebble ({@code pkibench serve pebble}), OpenBao's pki engine, any RFC 8555 CA.
 */
public final class AcmeWorkloads {
  private AcmeWorkloads() {}

  /** {@code -p presigned}: enough for about 2,800 orders, made in about a second on 2 cores. */
  static final int DEFAULT_PRESIGNED = 20_000;

  /** {@code -p presigned}'s bound: each takes about 150 bytes of heap. */
  public static final int MOST_PRESIGNED = 1_000_000;

  /** {@code -p serialize}: new orders and authorization fetches one at a time (Pebble 2.4). */
  public static final String SERIALIZED = "new-order-and-authorization";

  /** {@code -p challenge}: the CA passes every challenge by itself. */
  static final String ALWAYS_VALID = "always-valid";

  /** {@code -p challenge}: pkibench answers http-01, the CA validates for real. */
  static final String HTTP_01 = "http-01";

  /** What an operation of an {@code acme:KIND} workload is. */
  public enum Kind {
    /** One whole order for a fresh name. */
    ORDER("acme:order"),
    /** One whole order for the names the worker's account already holds. */
    RENEW("acme:renew"),
    /** One revocation of a certificate the worker's account got in its set-up. */
    REVOKE("acme:revoke");

    public final String workload;

    Kind(String workload) {
      this.workload = workload;
    }
  }

  /** {@code acme:order}, {@code acme:renew}, {@code acme:revoke}. */
  public static final class Factory implements WorkloadFactory {
    private final Kind kind;

    public Factory(Kind kind) {
      this.kind = kind;
    }

    @Override
    public String name() {
      return kind.workload;
    }

    @Override
    public String description() {
      return switch (kind) {
        case ORDER ->
            "an ACME CA at --target (its directory URL): one whole RFC 8555 order per operation (new order for a fresh name,"
                + " http-01 challenge, finalize with a CSR, download); --verify checks the certificate chains to issuer-trust,"
                + " carries the CSR's key and the name asked for, and is new";
        case RENEW ->
            "an ACME CA at --target: a renewal per operation, a whole order for the name the worker's account already holds"
                + " (its first operation gets it) over a new key from the pool; --verify checks as acme:order does, and that"
                + " the serial differs from the previous certificate's for that name";
        case REVOKE ->
            "an ACME CA at --target: one revocation per operation (RFC 8555 §7.6, signed by the account key) of a certificate"
                + " the worker got in its set-up, outside the measured time (-p certificates per worker, bounded: once all are"
                + " revoked the worker's operations fail); --verify checks the CA answers 200 and refuses a second revoke of it"
                + " as alreadyRevoked";
      };
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> params = new ArrayList<>(common());
      if (kind == Kind.REVOKE)
        params.addAll(
            List.of(
                ParamSpec.free(
                    "certificates",
                    "100",
                    "the certificates each worker gets in its set-up (outside the measured time) and revokes one per"
                        + " operation"),
                ParamSpec.choice(
                    "second-revoke",
                    "refused",
                    "--verify: a second revoke of each certificate must be refused alreadyRevoked ('off' for a CA"
                        + " that does not say so)",
                    "refused",
                    "off")));
      return params;
    }

    private static List<ParamSpec> common() {
      return List.of(
          ParamSpec.free(
              ParamSpec.TARGET,
              "",
              "the CA's ACME directory URL, e.g. https://127.0.0.1:14000/dir ('pkibench serve pebble')"),
          ParamSpec.free(
              "trust",
              "",
              "PEM file with the root the CA's TLS certificate chains to (default: the test PKI's root)"),
          ParamSpec.free(
              "issuer-trust",
              "",
              "the root issued certificates chain to, for --verify: a PEM file, or an https URL that serves it"
                  + " (Pebble's management /roots/0, fetched once over -p trust)"),
          ParamSpec.choice(
              "alg",
              "ecdsa-p256",
              "the CSR's key (from a pool made before the run)",
              "ecdsa-p256",
              "rsa2048"),
          ParamSpec.free("key-pool", "32", "CSR key pairs made before the run and used in turn"),
          ParamSpec.free(
              "presigned",
              Integer.toString(DEFAULT_PRESIGNED),
              "ECDSA signatures half made before the run (about 0.1 ms of CPU each, on every core): an order"
                  + " signs 7 times (6 requests and its CSR), each taking one; once used up the rest are signed"
                  + " whole in the run, slower per order (counted in the result)"),
          ParamSpec.choice(
              "challenge",
              ALWAYS_VALID,
              "how each authorization's http-01 challenge is passed: always-valid (the CA is set to pass every"
                  + " challenge: Pebble's PEBBLE_VA_ALWAYS_VALID), or http-01 (pkibench serves each key authorization at"
                  + " /.well-known/acme-challenge/TOKEN on 127.0.0.1:-p http-port, GET only, its own tokens only, and the"
                  + " CA really fetches it: 'serve pebble --challenge http-01')",
              ALWAYS_VALID,
              HTTP_01),
          ParamSpec.choice(
              "serialize",
              "none",
              "new-order-and-authorization: a new order and an authorization's fetch never at once, across workers (Debian's"
                  + " Pebble 2.4 can deadlock for good when they overlap: study ca sets it for the Pebble it starts); none:"
                  + " every step of every worker as it comes",
              "none",
              SERIALIZED),
          ParamSpec.free(
              "http-port",
              "5002",
              "-p challenge=http-01: the loopback port pkibench listens on for the CA's validation, the one the CA"
                  + " connects to (serve pebble --http-port)"),
          ParamSpec.free(
              "save",
              "",
              "a directory to write the first 20 issued certificates into (PEM chains), for study ca --save-samples"));
    }

    @Override
    public boolean usesKeys() {
      return false;
    }

    @Override
    public int socketsPerWorker(Params params) {
      return 2; // one HTTP client per worker; HTTP/1.1 may open a second connection
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      String target = params.get(ParamSpec.TARGET);
      if (!target.isBlank() && !isHttpUrl(target))
        problems.add(
            "--target "
                + target
                + ": give the CA's ACME directory URL, e.g. https://127.0.0.1:14000/dir");
      String trust = params.get("trust");
      if (!trust.isBlank() && !Files.isReadable(Path.of(trust)))
        problems.add("-p trust=" + trust + ": no such readable file; give a PEM file");
      String issuer = params.get("issuer-trust");
      if (!issuer.isBlank() && !isHttpUrl(issuer) && !Files.isReadable(Path.of(issuer)))
        problems.add(
            "-p issuer-trust="
                + issuer
                + ": neither a readable PEM file nor an http(s) URL serving the issuers' root");
      int pool = intOr(params.get("key-pool"), -1);
      if (pool < 1 || pool > 10_000)
        problems.add("-p key-pool=" + params.get("key-pool") + ": give 1 to 10000 key pairs");
      else if (kind == Kind.RENEW && pool < 2)
        problems.add(
            "-p key-pool=1: acme:renew renews over a new key each time; give at least 2 key pairs");
      int presigned = intOr(params.get("presigned"), -1);
      if (presigned < 0 || presigned > MOST_PRESIGNED)
        problems.add(
            "-p presigned="
                + params.get("presigned")
                + ": give 0 to "
                + MOST_PRESIGNED
                + " signatures (7 an order)");
      int httpPort = intOr(params.get("http-port"), -1);
      if (params.get("challenge").equals(HTTP_01) && (httpPort < 1 || httpPort > 65535))
        problems.add(
            "-p http-port="
                + params.get("http-port")
                + ": give the port (1 to 65535) the CA's http-01 validation connects to");
      int certificates = kind == Kind.REVOKE ? intOr(params.get("certificates"), -1) : 1;
      if (certificates < 1 || certificates > 5_000)
        problems.add(
            "-p certificates="
                + params.get("certificates")
                + ": give 1 to 5000 certificates per worker (each one a whole order in set-up)");
      return problems;
    }

    static boolean isHttpUrl(String text) {
      try {
        URI u = URI.create(text);
        return ("https".equals(u.getScheme()) || "http".equals(u.getScheme()))
            && u.getHost() != null;
      } catch (IllegalArgumentException e) {
        return false;
      }
    }

    private static int intOr(String text, int otherwise) {
      try {
        return Integer.parseInt(text.strip());
      } catch (NumberFormatException e) {
        return otherwise;
      }
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      X509Certificate tlsRoot =
          params.get("trust").isBlank()
              ? context.pki().get().certificate("root-ca")
              : PemKeys.certificate(Files.readAllBytes(Path.of(params.get("trust"))));
      SSLContext trust = TlsContexts.trusting(tlsRoot);
      IssuedCheck check = null;
      if (context.verify()) {
        String issuer = params.get("issuer-trust");
        if (issuer.isBlank())
          throw new IllegalArgumentException(
              "--verify: "
                  + kind.workload
                  + " checks certificates against -p issuer-trust=PEM|URL (Pebble's: https://127.0.0.1:PORT+1/roots/0)");
        // a root served at a URL (Pebble's, new each start) is fetched again when a chain fails it
        check =
            isHttpUrl(issuer)
                ? new IssuedCheck(issuerRoot(issuer, trust), () -> issuerRoot(issuer, trust))
                : new IssuedCheck(issuerRoot(issuer, trust));
      }
      String save = params.get("save");
      var pool =
          AcmeOrderWorkload.keyPool(params.get("alg"), Integer.parseInt(params.get("key-pool")));
      // the listener is up before the first order and closed with the workload
      Http01Answers answers =
          params.get("challenge").equals(HTTP_01)
              ? new Http01Listener(Integer.parseInt(params.get("http-port").strip()))
              : Http01Answers.NONE;
      AcmeOrderWorkload orders =
          new AcmeOrderWorkload(
              kind == Kind.RENEW ? AcmeOrderWorkload.Mode.RENEW : AcmeOrderWorkload.Mode.ORDER,
              params.get(ParamSpec.TARGET),
              trust,
              check,
              pool,
              PresignedEcdsa.make(Integer.parseInt(params.get("presigned").strip())),
              save.isBlank() ? null : Path.of(save),
              20,
              context.clock(),
              answers,
              params.get("serialize").equals(SERIALIZED));
      if (kind != Kind.REVOKE) return orders;
      return new AcmeRevokeWorkload(
          orders,
          Integer.parseInt(params.get("certificates").strip()),
          params.get("second-revoke").equals("refused"));
    }

    /** The issuers' root: a PEM file, or fetched once from a URL (Pebble's is new each start). */
    static X509Certificate issuerRoot(String given, SSLContext trust) throws Exception {
      if (!isHttpUrl(given)) return PemKeys.certificate(Files.readAllBytes(Path.of(given)));
      try (HttpClient client =
          HttpClient.newBuilder()
              .sslContext(trust)
              .connectTimeout(Duration.ofSeconds(10))
              .build()) {
        HttpResponse<byte[]> r =
            client.send(
                HttpRequest.newBuilder(URI.create(given)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200)
          throw new IllegalStateException(
              "-p issuer-trust=" + given + ": HTTP " + r.statusCode() + ", not the root's PEM");
        return PemKeys.certificate(r.body());
      }
    }
  }
}
