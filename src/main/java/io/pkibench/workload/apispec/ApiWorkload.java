package io.pkibench.workload.apispec;

import io.pkibench.files.InputFile;
import io.pkibench.formats.apispec.ApiSpec;
import io.pkibench.formats.apispec.SpecReader;
import io.pkibench.formats.apispec.SpecSecrets;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.TlsContexts;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.tls.ClientTlsParams;
import io.pkibench.workload.tls.WorkerClients;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@code api}: any HTTP(S) API described in a spec file ({@code -p spec=FILE.yaml}) driven against
 * {@code --target}: each operation sends the spec's requests in order, checks each answer's status,
 * captures what later steps use, signs locally where a two-phase API asks, then checks the
 * signatures and certificates it got back. See docs/api-workload.md.
 */
public final class ApiWorkload implements Workload {
  static final String SPEC = "spec";
  static final String TRUST = "trust";
  static final String CLIENT_CERT = "client-cert";
  static final String CLIENT_KEY = "client-key";
  static final String CSR_ALG = "csr-alg";
  static final String CSR_KEYS = "csr-keys";
  static final String TIMEOUT = "timeout-seconds";

  private final ApiSpec spec;
  private final SpecSecrets secrets;
  private final URI base;
  private final SSLContext tls;
  private final Duration timeout;
  private final Map<String, SigningKey> signingKeys;
  private final byte[] chainPem;
  private final CsrPool csrs;
  private final List<HttpClient> clients = new CopyOnWriteArrayList<>();

  /**
   * With {@code -p identities}: each worker's own certificate, presented on its own connections
   * (null: every worker presents {@code -p client-cert}'s, or none).
   */
  private WorkerClients.Identities identities;

  /** What an https target's certificate is checked against, for the workers' own contexts. */
  private TrustManager[] trust;

  private ApiWorkload(
      ApiSpec spec,
      SpecSecrets secrets,
      URI base,
      SSLContext tls,
      Duration timeout,
      Map<String, SigningKey> signingKeys,
      CsrPool csrs)
      throws IOException, GeneralSecurityException {
    this.spec = spec;
    this.secrets = secrets;
    this.base = base;
    this.tls = tls;
    this.timeout = timeout;
    this.signingKeys = Map.copyOf(signingKeys);
    this.csrs = csrs;
    this.chainPem =
        signingKeys.isEmpty() ? new byte[0] : pem(signingKeys.values().iterator().next().chain());
  }

  ApiSpec spec() {
    return spec;
  }

  SpecSecrets secrets() {
    return secrets;
  }

  Duration timeout() {
    return timeout;
  }

  CsrPool csrs() {
    return csrs;
  }

  byte[] chainPem() {
    return chainPem;
  }

  SigningKey signingKey(String alias) {
    return signingKeys.get(alias);
  }

  /** {@code path} (from {@code /}) under {@code --target}, the target's own path kept. */
  URI uri(String path) {
    return base.resolve(path.substring(1));
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    SSLContext tls = this.tls;
    if (tls != null && identities != null) {
      tls = SSLContext.getInstance("TLS");
      tls.init(TlsContexts.keyManagers(identities.forWorker(worker)), trust, null);
    }
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER);
    if (tls != null) builder.sslContext(tls);
    HttpClient http = builder.build();
    clients.add(http);
    return new ApiOperation(this, http, worker);
  }

  /** Closes every worker's connections now rather than at the service's idle timeout. */
  @Override
  public void close() {
    clients.forEach(HttpClient::shutdownNow);
    clients.clear();
  }

  private static byte[] pem(List<X509Certificate> chain) throws GeneralSecurityException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Base64.Encoder mime = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
    for (X509Certificate c : chain) {
      out.writeBytes("-----BEGIN CERTIFICATE-----\n".getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(mime.encode(c.getEncoded()));
      out.writeBytes("\n-----END CERTIFICATE-----\n".getBytes(StandardCharsets.US_ASCII));
    }
    return out.toByteArray();
  }

  /** Makes {@code api}; everything its spec file says is checked before the run. */
  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "api";
    }

    @Override
    public String description() {
      return "any HTTP(S) API described in a spec file (-p spec=FILE.yaml) at --target: steps, captures, local signing,"
          + " signature/cms/x509 checks (docs/api-workload.md)";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free(
              ParamSpec.TARGET,
              "",
              "the API's base URL, e.g. https://127.0.0.1:8443; each request's path is taken under it"),
          ParamSpec.free(SPEC, "", "the API spec: a YAML file (docs/api-workload.md)"),
          ParamSpec.free(
              TRUST,
              "",
              "PEM file of the certificates to trust for an https target (default: the JDK's trusted roots)"),
          ParamSpec.free(
              CLIENT_CERT,
              "",
              "PEM file: the client certificate (chain) to present, with -p client-key"),
          ParamSpec.free(
              CLIENT_KEY,
              "",
              "the client's private key: an unencrypted PEM file, or a PKCS#12 file (.p12/.pfx) with -p client-key-password-file or -env"),
          ParamSpec.free(
              ClientTlsParams.CLIENT_KEY_PASSWORD_FILE,
              "",
              "file whose first line is the PKCS#12 password (never given on the command line)"),
          ParamSpec.free(
              ClientTlsParams.CLIENT_KEY_PASSWORD_ENV,
              "",
              "name of the environment variable holding the PKCS#12 password (the name, never the password)"),
          ParamSpec.free(
              WorkerClients.IDENTITIES,
              "",
              "one client certificate per worker over mutual TLS; per-worker: the test PKI issues each worker one"
                  + " beside tls-client; DIR: a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key),"
                  + " one per worker in name order"),
          ParamSpec.choice(
              CSR_ALG,
              "ec-p256",
              "key type of the pool ${csr} draws from",
              CsrPool.ALGORITHMS.toArray(String[]::new)),
          ParamSpec.free(CSR_KEYS, "16", "keys in the pool ${csr} draws from, made before the run"),
          ParamSpec.free(TIMEOUT, "30", "seconds a request may take before the operation fails"));
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      String file = params.get(SPEC);
      if (file.isBlank())
        problems.add(
            "-p spec: give the API spec's YAML file, e.g. -p spec=sign-api.yaml (docs/api-workload.md)");
      else if (!Files.isRegularFile(Path.of(file)))
        problems.add("-p spec=" + file + ": no such file; give the API spec's YAML file");
      else {
        try {
          SpecReader.read(Path.of(file));
        } catch (IllegalArgumentException e) {
          problems.addAll(List.of(e.getMessage().split("\n")));
        }
      }
      String target = params.get(ParamSpec.TARGET);
      if (!target.isBlank()) {
        try {
          URI uri = URI.create(target);
          if (!"http".equalsIgnoreCase(uri.getScheme())
                  && !"https".equalsIgnoreCase(uri.getScheme())
              || uri.getHost() == null)
            problems.add("--target " + target + ": give an http:// or https:// URL with a host");
        } catch (IllegalArgumentException e) {
          problems.add("--target " + target + ": not a URL (" + e.getMessage() + ")");
        }
      }
      if (!params.get(TRUST).isBlank()) {
        try {
          PemKeys.certificates(Files.readAllBytes(Path.of(params.get(TRUST))));
        } catch (IOException | IllegalArgumentException e) {
          problems.add(
              "-p trust=" + params.get(TRUST) + ": give a readable PEM file of certificates");
        }
      }
      if (params.get(CLIENT_CERT).isBlank() != params.get(CLIENT_KEY).isBlank())
        problems.add(
            "-p client-cert and -p client-key go together: give the certificate and its private key");
      else if (!params.get(CLIENT_CERT).isBlank()) {
        try {
          // the checks before a run see no environment: a PKCS#12 password from it is read at the
          // run
          ClientTlsParams.fileIdentity(params, null);
        } catch (IllegalArgumentException e) {
          problems.add(e.getMessage());
        }
      }
      String identities = params.get(WorkerClients.IDENTITIES);
      if (!identities.isBlank() && !params.get(CLIENT_CERT).isBlank())
        problems.add(
            "-p identities and -p client-cert: the workers' identities replace the one client certificate; give one of them");
      if (!identities.isBlank()
          && !identities.equals(WorkerClients.PER_WORKER)
          && !Files.isDirectory(Path.of(identities)))
        problems.add(
            "-p identities="
                + identities
                + ": no such directory; give per-worker or a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key)");
      try {
        int n = Integer.parseInt(params.get(CSR_KEYS));
        if (n < 1 || n > 10_000) throw new NumberFormatException();
      } catch (NumberFormatException e) {
        problems.add("-p csr-keys=" + params.get(CSR_KEYS) + ": give a count from 1 to 10000");
      }
      try {
        if (Integer.parseInt(params.get(TIMEOUT)) < 1) throw new NumberFormatException();
      } catch (NumberFormatException e) {
        problems.add(
            "-p timeout-seconds="
                + params.get(TIMEOUT)
                + ": give a whole number of seconds, 1 or more");
      }
      return problems;
    }

    /** The spec's file, as the run's table names it: its path and sha256. */
    @Override
    public List<String> notes(Params params) {
      try {
        return List.of(
            "api spec " + params.get(SPEC) + " sha256 " + sha256(Path.of(params.get(SPEC))));
      } catch (IOException | RuntimeException e) {
        return List.of();
      }
    }

    /** The spec's text, each secret's value blanked, and the sha256 of the file as it is. */
    @Override
    public List<InputFile> inputs(Params params, Map<String, String> env) {
      try {
        Path file = Path.of(params.get(SPEC));
        ApiSpec spec = SpecReader.read(file);
        return List.of(
            new InputFile(
                params.get(SPEC), sha256(file), SpecSecrets.forText(spec, env).blank(spec.text())));
      } catch (IOException | RuntimeException e) {
        return List.of(); // a spec that cannot be read stops the run before this is asked
      }
    }

    private static String sha256(Path file) throws IOException {
      try {
        return HexFormat.of()
            .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("SHA-256 is in every JDK", e);
      }
    }

    @Override
    public List<String> workerProblems(Params params, int workers, String level) {
      return WorkerClients.workerProblems(params, workers, level);
    }

    @Override
    public int socketsPerWorker(Params params) {
      return 1;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      List<String> problems = problems(params, null);
      if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
      String target = params.get(ParamSpec.TARGET);
      if (target.isBlank())
        throw new IllegalArgumentException(
            "--target: give the API's base URL, e.g. https://127.0.0.1:8443");
      ApiSpec spec = SpecReader.read(Path.of(params.get(SPEC)));
      SpecSecrets secrets = SpecSecrets.read(spec, context.env());
      Map<String, SigningKey> keys = new LinkedHashMap<>();
      for (String alias : spec.signingKeys()) {
        if (context.keys() == null)
          throw new IllegalArgumentException(
              "the API spec signs with '" + alias + "': give --keys with that alias");
        try {
          keys.put(alias, context.keys().key(alias));
        } catch (GeneralSecurityException | RuntimeException e) {
          throw new IllegalArgumentException(
              "the API spec signs with '"
                  + alias
                  + "': --keys "
                  + context.keys().describe()
                  + " has no such key ("
                  + e.getMessage()
                  + ")");
        }
      }
      CsrPool csrs =
          spec.usesCsr()
              ? CsrPool.make(params.get(CSR_ALG), Integer.parseInt(params.get(CSR_KEYS)))
              : null;
      URI base = URI.create(target.endsWith("/") ? target : target + "/");
      boolean https = base.getScheme().equalsIgnoreCase("https");
      TrustManager[] trust = https ? trustManagers(params) : null;
      ApiWorkload w =
          new ApiWorkload(
              spec,
              secrets,
              base,
              https ? tls(params, trust, context.env()) : null,
              Duration.ofSeconds(Integer.parseInt(params.get(TIMEOUT))),
              keys,
              csrs);
      w.trust = trust;
      if (https) w.identities = WorkerClients.identities(context, params, "tls-client");
      return w;
    }

    private static SSLContext tls(Params params, TrustManager[] trust, Map<String, String> env)
        throws GeneralSecurityException {
      KeyManager[] identity =
          params.get(CLIENT_CERT).isBlank()
              ? null
              : TlsContexts.keyManagers(ClientTlsParams.fileIdentity(params, env));
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(identity, trust, null);
      return context;
    }

    /** {@code -p trust}'s certificates, or the JDK's roots. */
    private static TrustManager[] trustManagers(Params params)
        throws IOException, GeneralSecurityException {
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      if (params.get(TRUST).isBlank()) trust.init((KeyStore) null);
      else {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int i = 0;
        for (X509Certificate c :
            PemKeys.certificates(Files.readAllBytes(Path.of(params.get(TRUST)))))
          store.setCertificateEntry("trusted-" + i++, c);
        trust.init(store);
      }
      return trust.getTrustManagers();
    }
  }
}
