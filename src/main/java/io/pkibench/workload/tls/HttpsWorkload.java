package io.pkibench.workload.tls;

import io.netty.handler.ssl.SslContext;
import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.Http1;
import io.pkibench.plan.Durations;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.SocketBudget;
import io.pkibench.workload.api.SourceAddresses;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The netperf transactions as HTTPS against any web server (nginx, {@code serve tlsecho}'s HTTP
 * answers): {@code https-rr} a GET on a kept connection, {@code https-acrr} a new connection with a
 * full handshake per GET, then close, {@code https-stream} POST bodies on a kept connection. A
 * response counts only when its status is 2xx and its body has the expected length (for a POST: the
 * body's byte count, in decimal, as {@code serve tlsecho}'s {@code /sink} and the nginx the ssl
 * study configures answer). Over {@link Http1}, on the TLS engines and client identities of the
 * other TLS workloads.
 */
public final class HttpsWorkload implements Workload {
  public enum Kind {
    RR(
        "https-rr",
        "HTTP/1.1 keep-alive GET of a resource of -p expect-bytes (default path /bytes/N, as serve tlsecho answers)"),
    ACRR(
        "https-acrr",
        "a new connection with a full TLS handshake, one GET of -p expect-bytes, then close"),
    STREAM(
        "https-stream",
        "POST bodies of -p size on a kept connection (default path /sink); the answer must be the byte count");

    public final String workload;
    final String description;

    Kind(String workload, String description) {
      this.workload = workload;
      this.description = description;
    }
  }

  private final Kind kind;
  private final String target;
  private final InetSocketAddress address;
  private final SslContext tls;
  private final String suite;
  private final int timeoutMillis;
  private final byte[] head;
  private final int bodyBytes;
  private final long expectBytes;
  private final Set<Connection> kept = ConcurrentHashMap.newKeySet();

  private HttpsWorkload(
      Kind kind,
      String target,
      InetSocketAddress address,
      SslContext tls,
      String suite,
      int timeoutMillis,
      byte[] head,
      int bodyBytes,
      long expectBytes) {
    this.kind = kind;
    this.target = target;
    this.address = address;
    this.tls = tls;
    this.suite = suite;
    this.timeoutMillis = timeoutMillis;
    this.head = head;
    this.bodyBytes = bodyBytes;
    this.expectBytes = expectBytes;
  }

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
      return kind.description;
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> params =
          new ArrayList<>(
              List.of(
                  ParamSpec.free(
                      ParamSpec.TARGET,
                      "",
                      "https://HOST:PORT[/PATH], e.g. https://127.0.0.1:8444 (serve tlsecho) or https://127.0.0.1:8443/128b (nginx)"),
                  ParamSpec.free("timeout", "10s", "connect and read timeout")));
      params.addAll(ClientTlsParams.specs());
      params.add(
          ParamSpec.free(
              WorkerClients.IDENTITIES,
              "",
              "one client identity per worker; per-worker: the test PKI issues each worker a certificate"
                  + " beside -p client's; DIR: a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key), one per worker in name order"));
      params.add(SourceAddresses.spec());
      if (kind == Kind.STREAM) params.add(ParamSpec.free("size", "16k", "bytes per POST body"));
      else
        params.add(
            ParamSpec.free(
                "expect-bytes",
                kind == Kind.RR ? "128" : "8k",
                "the body length each response must have"));
      return params;
    }

    @Override
    public int socketsPerWorker(Params params) {
      return 1; // a kept-alive connection (RR, Stream) or one per transaction (ACRR)
    }

    @Override
    public List<String> workerProblems(Params params, int workers, String level) {
      return WorkerClients.workerProblems(params, workers, level);
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>(ClientTlsParams.problems(params));
      problems.addAll(WorkerClients.problems(params));
      String target = params.get(ParamSpec.TARGET);
      if (!target.isEmpty()) {
        try {
          URI uri = URI.create(target);
          if (!"https".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0)
            problems.add("--target " + target + ": write https://HOST:PORT[/PATH]");
        } catch (IllegalArgumentException e) {
          problems.add("--target " + target + ": write https://HOST:PORT[/PATH]");
        }
      }
      String sizeParam = kind == Kind.STREAM ? "size" : "expect-bytes";
      problems.addAll(
          SourceAddresses.problems(
              "-p " + SourceAddresses.PARAM,
              params.get(SourceAddresses.PARAM),
              TlsWorkload.hostOf(target)));
      int size = Params.parseBytes(params.get(sizeParam));
      if (size < (kind == Kind.STREAM ? 1 : 0) || size > (1 << 30))
        problems.add(
            "-p " + sizeParam + "=" + params.get(sizeParam) + ": a size such as 128, 8k or 1m");
      return problems;
    }

    @Override
    public long sourceAddresses(Params params) {
      return SourceAddresses.parse(params.get(SourceAddresses.PARAM))
          .count(TlsWorkload.hostOf(params.get(ParamSpec.TARGET)));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      List<String> problems = problems(params, "");
      if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
      URI uri = URI.create(params.get(ParamSpec.TARGET));
      int size = Params.parseBytes(params.get(kind == Kind.STREAM ? "size" : "expect-bytes"));
      String path =
          uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/")
              ? (kind == Kind.STREAM ? "/sink" : "/bytes/" + size)
              : uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
      String host = uri.getHost() + ":" + uri.getPort();
      byte[] head =
          kind == Kind.STREAM
              ? Http1.head("POST", path, host, true, size)
              : Http1.head("GET", path, host, kind == Kind.RR, -1);
      int timeout =
          (int) Math.min(Integer.MAX_VALUE, Durations.parse(params.get("timeout")).toMillis());
      var client = ClientTlsParams.read(context, params);
      SslContext tls = client.context();
      HttpsWorkload w =
          new HttpsWorkload(
              kind,
              params.get(ParamSpec.TARGET),
              new InetSocketAddress(uri.getHost(), uri.getPort()),
              tls,
              params.get("suite"),
              timeout,
              head,
              kind == Kind.STREAM ? size : 0,
              kind == Kind.STREAM ? Long.toString(size).length() : size);
      w.sources = SourceAddresses.parse(params.get(SourceAddresses.PARAM));
      w.clients = WorkerClients.of(context, params, client);
      w.portsPerAddress = SocketBudget.ofThisProcess().ephemeralPorts();
      w.loopbackTarget = SourceAddresses.isLoopback(uri.getHost());
      return w;
    }
  }

  /**
   * Where the connections leave from ({@code -p source-addresses}); the ports one address has;
   * whether the target is on loopback.
   */
  private SourceAddresses sources = SourceAddresses.parse(SourceAddresses.AUTO);

  private int portsPerAddress = Integer.MAX_VALUE;
  private boolean loopbackTarget;

  /** With -p identities, each worker's own client; else every worker shares {@link #tls}. */
  private WorkerClients clients;

  private Connection connect(int worker, SslContext context) throws IOException {
    return Dialer.connect(
        address,
        sources.forWorker(worker, portsPerAddress, loopbackTarget),
        target,
        context,
        suite,
        List.of(),
        timeoutMillis);
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    SslContext context =
        clients == null || !clients.perWorker() ? tls : clients.forWorker(worker).context();
    byte[] body = new byte[bodyBytes];
    new SplittableRandom(0x5eed + worker).nextBytes(body);
    String count = Long.toString(bodyBytes);
    if (kind == Kind.ACRR) {
      return () -> {
        try (Connection c = connect(worker, context)) {
          check(new Http1(c).exchange(head, null), null);
        }
      };
    }
    return new Operation() {
      private Connection connection;
      private Http1 http;

      @Override
      public void execute() throws Exception {
        if (connection == null) {
          connection = connect(worker, context);
          kept.add(connection);
          http = new Http1(connection);
        }
        Http1.Response r;
        try {
          r = http.exchange(head, body);
          check(r, kind == Kind.STREAM ? count : null);
        } catch (IOException | RuntimeException e) {
          drop();
          throw e;
        }
        if (!r.keepAlive())
          drop(); // the server said it closes: the next transaction opens a new connection
      }

      private void drop() {
        kept.remove(connection);
        connection.close();
        connection = null;
      }
    };
  }

  /**
   * 2xx and the expected body length (and, for a POST, the count the server read) or a failure
   * saying which.
   */
  private void check(Http1.Response r, String expectedBody) throws IOException {
    if (r.status() < 200 || r.status() > 299) {
      throw new IOException(
          "HTTP "
              + r.status()
              + " from "
              + target
              + (r.bodyStart().isBlank()
                  ? ""
                  : ": " + r.bodyStart().strip().replaceAll("\\s+", " ")));
    }
    if (r.bodyBytes() != expectBytes)
      throw new IOException(
          "body of " + r.bodyBytes() + " bytes, not the " + expectBytes + " expected");
    if (expectedBody != null && !expectedBody.equals(r.bodyStart())) {
      throw new IOException(
          "the server says it read " + r.bodyStart() + " bytes of the " + expectedBody + " sent");
    }
  }

  @Override
  public void close() {
    for (Connection c : kept) c.close();
    kept.clear();
  }
}
