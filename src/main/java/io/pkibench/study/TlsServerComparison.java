package io.pkibench.study;

import static io.pkibench.study.SslStudy.NGINX;
import static io.pkibench.study.SslStudy.PKIBENCH;

import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.server.nginx.NginxPeer;
import io.pkibench.study.TlsTransactions.Transaction;
import io.pkibench.workload.api.ParamSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code study ssl --server pkibench,nginx}: IBM's three transactions as a web server serves them
 * (HTTPS), on {@code serve tlsecho} beside Debian's nginx, like for like (one certificate, one TLS
 * version, one suite, one client engine); the figure is transactions per server CPU-second, and
 * each server's cost set against nginx's. One of the two studies behind {@code study ssl} ({@link
 * SslStudy}); IBM measured neither nginx nor HTTPS, so it has no original's figures.
 */
final class TlsServerComparison implements Study {
  /** The test PKI's RSA-2048 certificate, the one every server of the comparison presents. */
  static final String KEY = IbmTlsTable.SUBSTITUTE_KEY;

  /**
   * The test-PKI identity the clients present under {@code --client-auth need}: RSA-2048, its key
   * in the client's JVM (--keys software).
   */
  static final String CLIENT = "tls-client";

  /**
   * The one configuration every server of the comparison runs: the test PKI's RSA-2048 certificate,
   * TLS 1.2, AES-128-GCM with ECDHE.
   */
  static final String PEER_SUITE = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";

  static final String PEER_SUITE_OPENSSL = "ECDHE-RSA-AES128-GCM-SHA256";

  /**
   * The key-exchange groups every server accepts: those BoringSSL has (it has no x448, which JSSE
   * and nginx's OpenSSL would otherwise accept too), in each one's names.
   */
  static final List<String> PEER_GROUPS = List.of("x25519", "secp256r1", "secp384r1");

  static final List<String> PEER_GROUPS_OPENSSL = List.of("X25519", "prime256v1", "secp384r1");
  static final String PEER_PROTOCOL = "TLSv1.2";

  /** The HTTPS rows of the comparison: IBM's three transactions, as a web server serves them. */
  static final List<Transaction> HTTPS =
      List.of(
          new Transaction("HTTPS RR 128 B", "https-rr", Map.of("expect-bytes", "128")),
          new Transaction("HTTPS ACRR 8 KB", "https-acrr", Map.of("expect-bytes", "8k")),
          new Transaction("HTTPS Stream 16 KB", "https-stream", Map.of("size", "16k")));

  /**
   * nginx's worker processes: as many as tlsecho's event-loop threads (one per core), stated in the
   * report.
   */
  static int nginxWorkers() {
    return Runtime.getRuntime().availableProcessors();
  }

  /**
   * The client engine every server of the comparison gets: the same client for each, BoringSSL
   * where it loads.
   */
  static String peerClientEngine() {
    return TlsEngine.OPENSSL.problem() == null ? TlsEngine.OPENSSL.flag : TlsEngine.JSSE.flag;
  }

  private final List<String> engineFlags;

  /** {@code --server}: which of pkibench (serve tlsecho) and nginx are compared. */
  private final List<String> servers;

  private final Path nginxDir;

  /**
   * {@code --client-auth need}: every server of the comparison demands a client certificate, every
   * client presents {@link #CLIENT}.
   */
  private final boolean mutual;

  /**
   * nginx runs from a configuration in {@code nginxDir}; mutual TLS on every server when {@code
   * mutual}.
   */
  TlsServerComparison(
      List<String> engineFlags, List<String> servers, Path nginxDir, boolean mutual) {
    this.engineFlags = List.copyOf(engineFlags);
    this.servers = List.copyOf(servers);
    this.nginxDir = nginxDir;
    this.mutual = mutual;
  }

  /**
   * Comparing servers, the study has no original's figures to set beside ours: IBM measured neither
   * nginx nor HTTPS.
   */
  private static final StudyInfo INFO =
      new StudyInfo(
          "ssl",
          "HTTPS transactions per server CPU-second, serve tlsecho beside Debian's nginx",
          StudyRecord.Unit.TPS_PER_SERVER_CPU,
          null,
          Duration.ofSeconds(30));

  @Override
  public StudyInfo info() {
    return INFO;
  }

  /** The command's flags are checked once for both ssl studies: {@link SslStudy#problems}. */
  @Override
  public List<String> problems(StudyOptions options) {
    return List.of();
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    List<ServiceSpec> services = new ArrayList<>();
    if (servers.contains(PKIBENCH)) {
      for (String engine : engineFlags) {
        List<String> args =
            new ArrayList<>(
                List.of(
                    "tlsecho",
                    "--tls",
                    engine,
                    "--key",
                    KEY,
                    "--protocols",
                    PEER_PROTOCOL,
                    "--suites",
                    PEER_SUITE,
                    "--plain-port",
                    "-1",
                    "--client-auth",
                    clientAuth(),
                    "--resumption",
                    "off",
                    "--pki",
                    options.pkiDir().toString()));
        // BoringSSL takes the groups as a flag; JSSE only from the JDK's property, set in its JVM
        boolean jsse = engine.equals(TlsEngine.JSSE.flag);
        if (!jsse) args.addAll(List.of("--groups", String.join(",", PEER_GROUPS)));
        services.add(
            new ServiceSpec(
                PKIBENCH + "-" + engine,
                args,
                "tls",
                jsse
                    ? List.of("-Djdk.tls.namedGroups=" + String.join(",", PEER_GROUPS))
                    : List.of()));
      }
    }
    if (servers.contains(NGINX)) {
      services.add(
          new ServiceSpec(
              NGINX,
              List.of(
                  "nginx",
                  "--dir",
                  nginxDir.toString(),
                  "--key",
                  KEY,
                  "--protocols",
                  PEER_PROTOCOL,
                  "--ciphers",
                  PEER_SUITE_OPENSSL,
                  "--workers",
                  Integer.toString(nginxWorkers()),
                  "--sizes",
                  "128,8192",
                  "--groups",
                  String.join(",", PEER_GROUPS_OPENSSL),
                  "--client-auth",
                  clientAuth(),
                  "--pki",
                  options.pkiDir().toString()),
              "https"));
    }
    return services;
  }

  /**
   * What every server of the comparison asks of clients: the same on each, so the comparison stays
   * like for like.
   */
  private String clientAuth() {
    return mutual ? "need" : "none";
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    List<Step> steps = new ArrayList<>();
    StepHook check = new LikeForLikeCheck(services.names(), checked);
    for (Transaction t : HTTPS) {
      if (servers.contains(NGINX))
        steps.add(
            TlsTransactions.step(
                options, TlsTransactions.label(t, NGINX, ""), spec(t, services.url(NGINX)), NGINX));
      if (servers.contains(PKIBENCH)) {
        for (String engine : engineFlags) {
          steps.add(
              TlsTransactions.step(
                  options,
                  TlsTransactions.label(t, PKIBENCH, engine),
                  spec(t, services.url(PKIBENCH + "-" + engine)),
                  PKIBENCH + "-" + engine));
        }
      }
    }
    if (steps.isEmpty()) return steps;
    // the checking run, once, before the first measured step: the servers are up, nothing measured
    Step first = steps.get(0);
    steps.set(
        0,
        new Step(
            first.label(),
            first.plan(),
            first.probe(),
            Stream.concat(Stream.of(check), first.beforeStep().stream()).toList(),
            first.beforeEachLevel(),
            first.forked(),
            first.notApplicableBecause(),
            first.forkJvmOptions(),
            first.levelOf()));
    return steps;
  }

  /** What the checking run saw of each server, filled in before the first step. */
  private final LikeForLikeCheck.Seen checked = new LikeForLikeCheck.Seen();

  /** The like-for-like evidence: each server's facts, and each pair's verdict against nginx. */
  @Override
  public List<String> findings(RunResult result, StudyOptions options) {
    return checked.findings(servers.contains(NGINX) ? NGINX : null);
  }

  /**
   * The grid with every server the checking run found not like for like with nginx (or could not
   * see) marked so: its figures shown, never set against nginx's.
   */
  @Override
  public StudyRecord.Grid gridAfterSteps(RunResult result, StudyOptions options) {
    StudyRecord.Grid grid = grid(options);
    if (!servers.contains(NGINX) || !servers.contains(PKIBENCH)) return null;
    List<StudyRecord.Cell> cells = new ArrayList<>();
    for (StudyRecord.Cell cell : grid.cells()) {
      String why =
          cell.column().equals(NGINX)
              ? null
              : checked.notComparedBecause(NGINX, PKIBENCH + "-" + cell.variant());
      cells.add(why == null ? cell : cell.notCompared(why));
    }
    return grid.withCells(cells);
  }

  WorkloadSpec spec(Transaction t, String url) {
    Map<String, String> params = new LinkedHashMap<>(t.params());
    String path =
        switch (t.workload()) {
          case "https-rr" -> "/bytes/128";
          case "https-acrr" -> "/bytes/8192";
          default -> "/sink";
        };
    params.put(
        ParamSpec.TARGET,
        url.replaceFirst("^tls://", "https://") + path); // tlsecho answers HTTPS on its TLS port
    params.put("engine", peerClientEngine());
    params.put("suite", PEER_SUITE);
    params.put("protocol", PEER_PROTOCOL);
    if (mutual)
      params.put(
          "client",
          CLIENT); // its key from --keys software: the test PKI's, signed in the client's JVM
    return new WorkloadSpec(t.workload(), params, "software");
  }

  @Override
  public StudyRecord.Grid grid(StudyOptions options) {
    List<StudyRecord.Cell> cells = new ArrayList<>();
    List<String> columns = new ArrayList<>();
    if (servers.contains(NGINX)) columns.add(NGINX);
    if (servers.contains(PKIBENCH)) columns.add(PKIBENCH);
    String configuration = PEER_PROTOCOL + ", " + PEER_SUITE + ", RSA-2048";
    for (Transaction t : HTTPS) {
      if (servers.contains(NGINX)) {
        cells.add(
            new StudyRecord.Cell(
                t.label(),
                NGINX,
                "",
                TlsTransactions.label(t, NGINX, ""),
                NginxPeer.version() + ", " + nginxWorkers() + " workers, " + configuration,
                null));
      }
      if (servers.contains(PKIBENCH)) {
        for (String engine : engineFlags) {
          cells.add(
              new StudyRecord.Cell(
                  t.label(),
                  PKIBENCH,
                  engine,
                  TlsTransactions.label(t, PKIBENCH, engine),
                  "serve tlsecho --tls " + engine + ", " + configuration,
                  null));
        }
      }
    }
    // nginx, where measured, is the column every cell is set against (its cost = 1): the ratio per
    // cell
    return new StudyRecord.Grid(
        "transaction",
        "server",
        HTTPS.stream().map(Transaction::label).toList(),
        columns,
        servers.contains(NGINX) ? NGINX : PKIBENCH,
        servers.contains(PKIBENCH) ? engineFlags : List.of(""),
        cells);
  }

  @Override
  public List<String> notes(StudyOptions options) {
    List<String> notes = new ArrayList<>();
    notes.add(
        "servers compared like for like: the same test-PKI RSA-2048 certificate, "
            + PEER_PROTOCOL
            + " with "
            + PEER_SUITE
            + " only, on loopback;"
            + " nginx ("
            + NginxPeer.version()
            + ") with "
            + nginxWorkers()
            + " worker processes, no session cache or tickets (serve tlsecho with --resumption off),"
            + " every server accepting the key-exchange groups "
            + String.join(", ", PEER_GROUPS)
            + " (BoringSSL's; nginx's ssl_ecdh_curve, JSSE's jdk.tls.namedGroups),"
            + " static files /bytes/128 and /bytes/8192, POST /sink read and answered with its byte count; its CPU is the master's and the workers'."
            + " serve tlsecho answers the same paths with one event-loop thread per core, its CPU by pid");
    if (mutual) {
      notes.add(
          "mutual TLS on every server: nginx with ssl_verify_client on, serve tlsecho with --client-auth need, both trusting the test PKI's"
              + " CAs; every client presents the test PKI's "
              + CLIENT
              + " certificate (RSA-2048, its key in the client's JVM), so each new"
              + " connection costs the server a client-certificate verification as well");
    }
    notes.add(
        "the same client for every server: https-* on the "
            + peerClientEngine()
            + " engine, on this machine; the relative-cost table sets"
            + " each server's CPU per transaction against nginx's (nginx = 1; above 1 costs more CPU than nginx)");
    if (options.quick())
      notes.add(
          "quick: four workers without a probe, servers measured cold; for sizing: --duration 30s");
    return notes;
  }
}
