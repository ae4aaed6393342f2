package io.pkibench.study;

import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.StudyRecord;
import io.pkibench.server.nginx.NginxPeer;
import io.pkibench.workload.api.ParamSpec;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Study 5 of STUDIES.md (IBM i 6.1 Performance Capabilities Reference, tables 5.6 and 5.7): the
 * netperf-style transactions RR 128 B, ACRR 8 KB and Stream 16 KB, each over plain TCP and over
 * each of the original's cipher suites, against {@code serve tlsecho} in its own JVM; the figure is
 * transactions per server CPU-second (the server's pid only), and the CPU cost of each suite
 * relative to plain TCP. Before anything starts, each original configuration (suite, TLS 1.0,
 * RSA-1024 key) is tried on loopback with the engine; where the runtime refuses it, the cell
 * measures a named modern substitute (TLS 1.2/1.3, RSA-2048) and the result says what was refused
 * and why.
 */
public final class SslStudy implements Study {
  /** A row of IBM's table: the transaction and the workload parameters that make it. */
  record Transaction(String label, String workload, Map<String, String> params) {}

  /**
   * A configuration measured in place of a refused original: the suite (IANA name), its TLS version
   * and server key, and why it is the nearest; {@code faster} when it is a faster class than the
   * original's (said in the cell, never silent).
   */
  record Substitute(
      String suite, String protocol, String keyFlag, String nearestBecause, boolean faster) {}

  /**
   * A column: the original's suite, and the substitutes tried in order where an engine refuses it,
   * the same list for both engines.
   */
  record Column(String label, String suite, List<Substitute> substitutes) {}

  static final List<Transaction> TRANSACTIONS =
      List.of(
          new Transaction("RR 128 B", "tls-rr", Map.of("size", "128")),
          new Transaction("ACRR 8 KB", "tls-acrr", Map.of("request", "64", "response", "8k")),
          new Transaction("Stream 16 KB", "tls-stream", Map.of("size", "16k", "ack", "16")));
  static final String PLAIN = "plain";
  static final String ORIGINAL_PROTOCOL = "TLSv1";
  static final String ORIGINAL_KEY = "rsa1024";
  static final String SUBSTITUTE_KEY = "rsa2048";
  // Nearest first: the original's TLS 1.0, RSA key exchange and RSA-1024 key with the same cipher
  // family, else the next
  // slower column of IBM's table; a modern suite (another key exchange, another key) only after
  // those.
  private static final Substitute AES128_CBC_FOR_RC4 =
      new Substitute(
          "TLS_RSA_WITH_AES_128_CBC_SHA",
          ORIGINAL_PROTOCOL,
          ORIGINAL_KEY,
          "the same TLS 1.0 RSA key exchange and RSA-1024 key with AES-128-CBC, the next slower column of IBM's table"
              + " (no stream cipher is left with RSA key exchange)",
          false);
  private static final Substitute CHACHA_TLS12 =
      new Substitute(
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLSv1.2",
          SUBSTITUTE_KEY,
          "a stream cipher as RC4 was, but with another key exchange (ECDHE), TLS 1.2 and an RSA-2048 key",
          false);
  static final List<Column> COLUMNS =
      List.of(
          new Column(
              "RC4/MD5", "TLS_RSA_WITH_RC4_128_MD5", List.of(AES128_CBC_FOR_RC4, CHACHA_TLS12)),
          new Column(
              "RC4/SHA-1", "TLS_RSA_WITH_RC4_128_SHA", List.of(AES128_CBC_FOR_RC4, CHACHA_TLS12)),
          new Column(
              "AES128/SHA-1",
              "TLS_RSA_WITH_AES_128_CBC_SHA",
              List.of(
                  new Substitute(
                      "TLS_RSA_WITH_AES_128_CBC_SHA",
                      "TLSv1.2",
                      ORIGINAL_KEY,
                      "the original suite and key in TLS 1.2",
                      false),
                  new Substitute(
                      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                      "TLSv1.2",
                      SUBSTITUTE_KEY,
                      "AES-128 in TLS 1.2's AEAD mode, ECDHE, RSA-2048",
                      false))),
          new Column(
              "AES256/SHA-1",
              "TLS_RSA_WITH_AES_256_CBC_SHA",
              List.of(
                  new Substitute(
                      "TLS_RSA_WITH_AES_256_CBC_SHA",
                      "TLSv1.2",
                      ORIGINAL_KEY,
                      "the original suite and key in TLS 1.2",
                      false),
                  new Substitute(
                      "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                      "TLSv1.2",
                      SUBSTITUTE_KEY,
                      "AES-256 in TLS 1.2's AEAD mode, ECDHE, RSA-2048",
                      false))),
          new Column(
              "TDES/SHA-1",
              "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
              List.of(
                  new Substitute(
                      "TLS_RSA_WITH_AES_256_CBC_SHA",
                      ORIGINAL_PROTOCOL,
                      ORIGINAL_KEY,
                      "FASTER than the original's class: no 3DES is left in this engine and nothing slower; AES-256-CBC, the slowest cipher it has,"
                          + " with the same TLS 1.0 RSA key exchange and RSA-1024 key",
                      true))));

  /**
   * What one engine does in one column: the configuration measured, and why it is not the
   * original's when it is not.
   */
  record Choice(Column column, TlsEngine engine, TlsAttempt measured, String substitutedBecause) {
    /**
     * The service that serves it: one per engine, key and TLS version ({@code -original}: the
     * original's RSA-1024 and TLS 1.0).
     */
    String service() {
      if (measured == null) return null;
      boolean original =
          measured.keyFlag().equals(ORIGINAL_KEY) && measured.protocol().equals(ORIGINAL_PROTOCOL);
      return engine.flag
          + (original
              ? "-original"
              : "-"
                  + measured.keyFlag()
                  + "-"
                  + measured.protocol().toLowerCase(java.util.Locale.ROOT));
    }
  }

  private final List<String> engineFlags;

  /**
   * How to start another JVM of this program: where JSSE's attempts run with the legacy security
   * properties.
   */
  private final List<String> javaCommand = io.pkibench.session.ForkedSeries.thisJvm();

  private String legacyOption;
  private List<Choice> choices;
  private StudyOptions choicesFor;

  /**
   * {@code --server}: pkibench (the IBM table on tlsecho), nginx beside it (the HTTPS transactions
   * on both, like for like).
   */
  private final List<String> servers;

  private final java.nio.file.Path nginxDir;

  /**
   * {@code --client-auth need}: every server of the comparison demands a client certificate, every
   * client presents {@link #CLIENT}.
   */
  private final boolean mutual;

  public SslStudy(List<String> engineFlags) {
    this(engineFlags, List.of(PKIBENCH), null);
  }

  /**
   * With nginx among {@code servers}, the study compares the servers ({@link #peers}) and nginx
   * runs from a configuration in {@code nginxDir}.
   */
  public SslStudy(List<String> engineFlags, List<String> servers, java.nio.file.Path nginxDir) {
    this(engineFlags, servers, nginxDir, false);
  }

  /** As above, mutual TLS on every server when {@code mutual} (the server comparison only). */
  public SslStudy(
      List<String> engineFlags, List<String> servers, java.nio.file.Path nginxDir, boolean mutual) {
    this.engineFlags = List.copyOf(engineFlags);
    this.servers = List.copyOf(servers);
    this.nginxDir = nginxDir;
    this.mutual = mutual;
  }

  /**
   * The test-PKI identity the clients present under {@code --client-auth need}: RSA-2048, its key
   * in the client's JVM (--keys software).
   */
  static final String CLIENT = "tls-client";

  static final String PKIBENCH = "pkibench";
  static final String NGINX = "nginx";

  /**
   * The one configuration every server of the comparison runs: the test PKI's RSA-2048 certificate,
   * TLS 1.2, AES-128-GCM with ECDHE.
   */
  static final String PEER_SUITE = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";

  static final String PEER_SUITE_OPENSSL = "ECDHE-RSA-AES128-GCM-SHA256";
  static final String PEER_PROTOCOL = "TLSv1.2";

  /** The HTTPS rows of the comparison: IBM's three transactions, as a web server serves them. */
  static final List<Transaction> HTTPS =
      List.of(
          new Transaction("HTTPS RR 128 B", "https-rr", Map.of("expect-bytes", "128")),
          new Transaction("HTTPS ACRR 8 KB", "https-acrr", Map.of("expect-bytes", "8k")),
          new Transaction("HTTPS Stream 16 KB", "https-stream", Map.of("size", "16k")));

  /** Whether this run compares servers (nginx asked for) rather than reproducing IBM's table. */
  boolean peers() {
    return servers.contains(NGINX);
  }

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

  private static final StudyInfo INFO =
      new StudyInfo(
          "ssl",
          "TLS transactions per server CPU by transaction type and cipher suite (after IBM i 6.1, tables 5.6 and 5.7)",
          StudyRecord.Unit.TPS_PER_SERVER_CPU,
          published(),
          Duration.ofSeconds(30));

  /**
   * Comparing servers, the study has no original's figures to set beside ours: IBM measured neither
   * nginx nor HTTPS.
   */
  private static final StudyInfo PEERS_INFO =
      new StudyInfo(
          "ssl",
          "HTTPS transactions per server CPU-second, serve tlsecho beside Debian's nginx",
          StudyRecord.Unit.TPS_PER_SERVER_CPU,
          null,
          Duration.ofSeconds(30));

  @Override
  public StudyInfo info() {
    return peers() ? PEERS_INFO : INFO;
  }

  private static StudyRecord.Published published() {
    double[][] figures = {
      {1167, 565.4, 530.0, 479.6, 462.1, 202.2},
      {249.7, 53.4, 48.0, 31.3, 27.4, 4.8},
      {478.4, 55.7, 53.3, 36.9, 31.9, 6.5}
    };
    List<StudyRecord.Figure> list = new ArrayList<>();
    for (int r = 0; r < TRANSACTIONS.size(); r++) {
      list.add(
          new StudyRecord.Figure(
              label(TRANSACTIONS.get(r), PLAIN, ""),
              figures[r][0] / 100,
              "plain TCP (" + TrimmedNumber.of(figures[r][0], 1) + " per server CPU)"));
      for (int c = 0; c < COLUMNS.size(); c++) {
        list.add(
            new StudyRecord.Figure(
                TRANSACTIONS.get(r).label() + " · " + COLUMNS.get(c).label(),
                figures[r][c + 1] / 100,
                "TLS 1.0, RSA-1024, "
                    + COLUMNS.get(c).suite()
                    + " ("
                    + TrimmedNumber.of(figures[r][c + 1], 1)
                    + " per server CPU)"));
      }
    }
    // Table 5.6 is per server CPU; IBM sizes with it per CPU-percent (its worked example: 5 tps per
    // CPU-% is 250 tps at 50%).
    return new StudyRecord.Published(
        "IBM i 6.1 Performance Capabilities Reference, table 5.6 (STUDIES.md, study 5)",
        "IBM i 6.1 on the IBM Power hardware described in that chapter, with IBM i's own TLS implementation",
        list,
        new StudyRecord.Unit("tps per CPU-%", 0.01, StudyRecord.Unit.PER_SERVICE_CPU_SECOND),
        new StudyRecord.Condition(
            "the server's CPU measured (the figures are per server CPU)", null),
        List.of());
  }

  @Override
  public List<String> problems(StudyOptions options) {
    List<String> problems = new ArrayList<>();
    if (engineFlags.isEmpty()) problems.add("--tls: name at least one engine: jsse, openssl");
    for (String flag : engineFlags) {
      try {
        String problem = TlsEngine.parse(flag).problem();
        if (problem != null) problems.add("--tls " + flag + ": " + problem);
      } catch (IllegalArgumentException e) {
        problems.add("--tls " + flag + ": use jsse, openssl or both (jsse,openssl)");
      }
    }
    if (servers.isEmpty()) problems.add("--server: name at least one: pkibench, nginx");
    for (String server : servers) {
      if (!server.equals(PKIBENCH) && !server.equals(NGINX))
        problems.add("--server " + server + ": use pkibench, nginx or both (pkibench,nginx)");
    }
    if (mutual && !peers()) {
      problems.add(
          "--client-auth need: only with --server pkibench,nginx (the server comparison); IBM's table measured no client certificates");
    }
    if (servers.contains(NGINX)) {
      String nginx = NginxPeer.problem();
      if (nginx != null) problems.add("--server nginx: " + nginx);
      if (nginxDir == null)
        problems.add("--server nginx: no directory for nginx's configuration (give --out)");
    }
    if (options.duration().compareTo(Duration.ofSeconds(5)) < 0)
      problems.add("--duration: measure each cell at least 5s, e.g. --duration 30s");
    if (Files.exists(options.pkiDir().resolve("pki.json"))) {
      TestPki pki = TestPki.open(options.pkiDir());
      for (String alias :
          List.of(
              TlsServerKeys.ALIASES.get(ORIGINAL_KEY), TlsServerKeys.ALIASES.get(SUBSTITUTE_KEY))) {
        if (pki.entities().stream().noneMatch(e -> e.alias().equals(alias))) {
          problems.add(
              "the test PKI in "
                  + options.pkiDir()
                  + " predates the ssl study's "
                  + alias
                  + " certificate; re-create it"
                  + " (move the directory away, then: pkibench pki init --dir "
                  + options.pkiDir()
                  + "), or give another with --pki DIR");
        }
      }
    }
    return problems;
  }

  /**
   * Tries each column's original configuration with each engine, JSSE with the legacy security
   * properties in a JVM of its own ({@link LegacyTls}); where an engine refuses it, the column's
   * substitutes in order, and the first one every refusing engine speaks is measured by all of them
   * (the same substitute in a column for both engines). Done once, before the services are chosen,
   * with the same runtime they run on.
   */
  List<Choice> choices(StudyOptions options) {
    if (choices != null && options.equals(choicesFor)) return choices;
    choices = choicesFor(options, columns(options));
    choicesFor = options;
    return choices;
  }

  /** {@link #choices} for {@code columns}, tried afresh. */
  List<Choice> choicesFor(StudyOptions options, List<Column> columns) {
    List<TlsAttempt> wanted = new ArrayList<>();
    for (Column column : columns) {
      wanted.add(new TlsAttempt(null, ORIGINAL_KEY, ORIGINAL_PROTOCOL, column.suite()));
      for (Substitute s : column.substitutes())
        wanted.add(new TlsAttempt(null, s.keyFlag(), s.protocol(), s.suite()));
    }
    // engine → (key, protocol, IANA suite) → outcome. JSSE's are tried all at once in its one child
    // JVM (starting it
    // is the cost); BoringSSL's here, only those a column needs.
    Map<TlsEngine, Map<String, LegacyTls.Outcome>> tried = new LinkedHashMap<>();
    for (String flag : engineFlags) {
      TlsEngine engine = TlsEngine.parse(flag);
      Map<String, LegacyTls.Outcome> byKey = new LinkedHashMap<>();
      if (engine == TlsEngine.JSSE) {
        List<TlsAttempt> attempts =
            wanted.stream()
                .map(a -> new TlsAttempt(engine, a.keyFlag(), a.protocol(), a.suite()))
                .distinct()
                .toList();
        List<LegacyTls.Outcome> outcomes =
            LegacyTls.inChild(javaCommand, legacyOption(), options.pkiDir(), engine, attempts);
        for (int i = 0; i < attempts.size(); i++) byKey.put(key(attempts.get(i)), outcomes.get(i));
      }
      tried.put(engine, byKey);
    }
    TestPki pki =
        TestPki.open(
            options.pkiDir()); // made before any study starts (the study command makes it when
    // missing)
    java.util.function.BiFunction<TlsEngine, TlsAttempt, LegacyTls.Outcome> outcome =
        (engine, a) ->
            tried
                .get(engine)
                .computeIfAbsent(
                    key(a),
                    k ->
                        inThisJvm(
                            pki, new TlsAttempt(engine, a.keyFlag(), a.protocol(), a.suite())));
    List<Choice> list = new ArrayList<>();
    for (Column column : columns) {
      Map<TlsEngine, String> refusedBecause = new LinkedHashMap<>();
      for (var e : tried.entrySet()) {
        LegacyTls.Outcome first =
            outcome.apply(
                e.getKey(),
                new TlsAttempt(e.getKey(), ORIGINAL_KEY, ORIGINAL_PROTOCOL, column.suite()));
        if (first.refusal() == null) {
          list.add(new Choice(column, e.getKey(), first.attempt(), null));
        } else {
          refusedBecause.put(
              e.getKey(),
              "the original (" + first.attempt().describe() + ") was refused: " + first.refusal());
        }
      }
      if (refusedBecause.isEmpty()) continue;
      // the first substitute every refusing engine speaks; else each engine its own first, and the
      // cell says so
      Substitute common =
          column.substitutes().stream()
              .filter(
                  sub ->
                      refusedBecause.keySet().stream()
                          .allMatch(
                              engine ->
                                  outcome.apply(engine, attempt(engine, sub)).refusal() == null))
              .findFirst()
              .orElse(null);
      for (var e : refusedBecause.entrySet()) {
        StringBuilder why = new StringBuilder(e.getValue());
        Choice choice = null;
        for (Substitute sub : column.substitutes()) {
          if (common != null && sub != common) continue;
          LegacyTls.Outcome next = outcome.apply(e.getKey(), attempt(e.getKey(), sub));
          if (next.refusal() == null) {
            why.append("; the substitute is ").append(sub.nearestBecause());
            if (common == null && refusedBecause.size() > 1)
              why.append(
                  " (no one substitute was spoken by every engine that refused the original)");
            choice = new Choice(column, e.getKey(), next.attempt(), why.toString());
            break;
          }
          why.append("; ")
              .append(next.attempt().describe())
              .append(" was refused too: ")
              .append(next.refusal());
        }
        list.add(choice != null ? choice : new Choice(column, e.getKey(), null, why.toString()));
      }
    }
    // engines in the order given, columns in IBM's order within each
    List<Choice> ordered = new ArrayList<>();
    for (String flag : engineFlags)
      list.stream().filter(c -> c.engine().flag.equals(flag)).forEach(ordered::add);
    return List.copyOf(ordered);
  }

  private static String key(TlsAttempt a) {
    return a.keyFlag() + "," + a.protocol() + "," + a.suite();
  }

  private static TlsAttempt attempt(TlsEngine engine, Substitute sub) {
    return new TlsAttempt(engine, sub.keyFlag(), sub.protocol(), sub.suite());
  }

  /** BoringSSL reads no Java security property: its attempts run here. */
  private static LegacyTls.Outcome inThisJvm(TestPki pki, TlsAttempt a) {
    try {
      TlsAttempt named = a.inEngineNames();
      return new LegacyTls.Outcome(
          named, named.refusal(TlsServerKeys.of(pki, a.keyFlag()), pki.certificate("root-ca")));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(
          "cannot read the test PKI's TLS server keys: " + e.getMessage(), e);
    }
  }

  /** The JVM option naming the legacy security properties file, written once per study. */
  private String legacyOption() {
    if (legacyOption == null) legacyOption = LegacyTls.jvmOption();
    return legacyOption;
  }

  private static List<Column> columns(StudyOptions options) {
    return COLUMNS; // quick measures every column too, in shorter iterations
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    if (peers()) return peerServices(options);
    List<ServiceSpec> services = new ArrayList<>();
    services.add(
        new ServiceSpec(
            PLAIN,
            List.of("tlsecho", "--tls", "none", "--pki", options.pkiDir().toString()),
            "tcp"));
    Map<String, Set<String>> suites = new LinkedHashMap<>();
    Map<String, TlsAttempt> configuration = new LinkedHashMap<>();
    for (Choice c : choices(options)) {
      if (c.measured() == null) continue;
      suites.computeIfAbsent(c.service(), k -> new LinkedHashSet<>()).add(c.measured().suite());
      configuration.putIfAbsent(c.service(), c.measured());
    }
    for (var e : suites.entrySet()) {
      TlsAttempt a = configuration.get(e.getKey());
      services.add(
          new ServiceSpec(
              e.getKey(),
              List.of(
                  "tlsecho",
                  "--tls",
                  a.engine().flag,
                  "--key",
                  a.keyFlag(),
                  "--protocols",
                  a.protocol(),
                  "--suites",
                  String.join(",", e.getValue()),
                  "--plain-port",
                  "-1",
                  "--pki",
                  options.pkiDir().toString()),
              "tls",
              jvmOptions(a.engine())));
    }
    return services;
  }

  /** JSSE's JVMs get the legacy security properties; BoringSSL's need none. */
  private List<String> jvmOptions(TlsEngine engine) {
    return engine == TlsEngine.JSSE ? List.of(legacyOption()) : List.of();
  }

  private List<ServiceSpec> peerServices(StudyOptions options) {
    List<ServiceSpec> services = new ArrayList<>();
    if (servers.contains(PKIBENCH)) {
      for (String engine : engineFlags) {
        services.add(
            new ServiceSpec(
                PKIBENCH + "-" + engine,
                List.of(
                    "tlsecho",
                    "--tls",
                    engine,
                    "--key",
                    SUBSTITUTE_KEY,
                    "--protocols",
                    PEER_PROTOCOL,
                    "--suites",
                    PEER_SUITE,
                    "--plain-port",
                    "-1",
                    "--client-auth",
                    clientAuth(),
                    "--pki",
                    options.pkiDir().toString()),
                "tls"));
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
                  SUBSTITUTE_KEY,
                  "--protocols",
                  PEER_PROTOCOL,
                  "--ciphers",
                  PEER_SUITE_OPENSSL,
                  "--workers",
                  Integer.toString(nginxWorkers()),
                  "--sizes",
                  "128,8192",
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

  private List<Step> peerSteps(StudyOptions options, RunningServices services) {
    List<Step> steps = new ArrayList<>();
    for (Transaction t : HTTPS) {
      if (servers.contains(NGINX))
        steps.add(step(options, peerLabel(t, NGINX, ""), peerSpec(t, services.url(NGINX)), NGINX));
      if (servers.contains(PKIBENCH)) {
        for (String engine : engineFlags) {
          steps.add(
              step(
                  options,
                  peerLabel(t, PKIBENCH, engine),
                  peerSpec(t, services.url(PKIBENCH + "-" + engine)),
                  PKIBENCH + "-" + engine));
        }
      }
    }
    return steps;
  }

  static String peerLabel(Transaction t, String server, String engine) {
    return t.label() + " · " + server + (engine.isEmpty() ? "" : " [" + engine + "]");
  }

  WorkloadSpec peerSpec(Transaction t, String url) {
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

  private StudyRecord.Grid peerGrid() {
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
                peerLabel(t, NGINX, ""),
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
                  peerLabel(t, PKIBENCH, engine),
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
  public List<Step> steps(StudyOptions options, RunningServices services) {
    if (peers()) return peerSteps(options, services);
    List<Step> steps = new ArrayList<>();
    for (Transaction t : TRANSACTIONS) {
      steps.add(step(options, label(t, PLAIN, ""), spec(t, services.url(PLAIN), null), PLAIN));
      for (Column column : columns(options)) {
        for (Choice c : choices(options)) {
          if (c.column() != column || c.measured() == null) continue;
          Step step =
              step(
                  options,
                  label(t, column.label(), c.engine().flag),
                  spec(t, services.url(c.service()), c),
                  c.service());
          // JSSE's client needs the legacy properties too, which this JVM must not get: it runs in
          // forks that have them
          steps.add(c.engine() == TlsEngine.JSSE ? step.inForksWith(jvmOptions(c.engine())) : step);
        }
      }
    }
    return steps;
  }

  @Override
  public StudyRecord.Grid grid(StudyOptions options) {
    if (peers()) return peerGrid();
    List<StudyRecord.Cell> cells = new ArrayList<>();
    for (Transaction t : TRANSACTIONS) {
      cells.add(new StudyRecord.Cell(t.label(), PLAIN, "", label(t, PLAIN, ""), "plain TCP", null));
      for (Choice c : choices(options)) {
        String step = c.measured() == null ? null : label(t, c.column().label(), c.engine().flag);
        cells.add(
            new StudyRecord.Cell(
                t.label(),
                c.column().label(),
                c.engine().flag,
                step,
                c.measured() == null ? "nothing" : c.measured().describe(),
                c.substitutedBecause()));
      }
    }
    List<String> columns = new ArrayList<>(List.of(PLAIN));
    columns.addAll(columns(options).stream().map(Column::label).toList());
    return new StudyRecord.Grid(
        "transaction",
        "cipher suite",
        TRANSACTIONS.stream().map(Transaction::label).toList(),
        columns,
        PLAIN,
        engineFlags,
        cells);
  }

  static String label(Transaction t, String column, String engine) {
    return t.label() + " · " + column + (engine.isEmpty() ? "" : " [" + engine + "]");
  }

  private static WorkloadSpec spec(Transaction t, String url, Choice c) {
    Map<String, String> params = new LinkedHashMap<>(t.params());
    params.put(ParamSpec.TARGET, url);
    if (c != null) {
      params.put("engine", c.engine().flag);
      params.put("suite", c.measured().suite());
      params.put("protocol", c.measured().protocol());
    }
    return new WorkloadSpec(t.workload(), params, "software");
  }

  private Step step(StudyOptions options, String label, WorkloadSpec spec, String service) {
    String cpu = "service:" + service;
    long seconds = Math.max(5, options.duration().toSeconds());
    // quick: every column in fifth-of-a-second iterations (warm up to 1 s until steady, measure
    // 0.75 s), so 18 cells take less than 9 took
    Iterations warmup = options.warmup("1x200ms", 1, Duration.ofSeconds(Math.max(3, seconds / 10)));
    if (options.quick())
      warmup =
          new Iterations(
              warmup.count(),
              warmup.each(),
              5); // judging takes 3; 2 more, not 7: 18 cells in quick
    Iterations measure =
        options.iterations("3x250ms", 5, Duration.ofSeconds(Math.max(1, seconds / 5)));
    // No probe when quick: four workers keep a loopback server busy on this 2-core class of
    // machine; a smoke run, not sizing.
    if (options.quick()) return Step.of(label, plan(spec, List.of(4), warmup, measure, cpu));
    Plan probe =
        plan(
            spec,
            List.of(1, 2, 4, 8, 16),
            new Iterations(0, Duration.ofSeconds(2), StudyOptions.QUICK_WARMUP_CAP),
            Iterations.parse("1x2s"),
            cpu);
    return Step.of(label, plan(spec, List.of(1), warmup, measure, cpu))
        .probedBy(probe, RestPkiStudy::choose);
  }

  private static Plan plan(
      WorkloadSpec spec, List<Integer> levels, Iterations warmup, Iterations measure, String cpu) {
    return Plan.of(List.of(spec))
        .concurrency(levels)
        .warmup(warmup)
        .measure(measure)
        .cpu(cpu)
        .build();
  }

  @Override
  public List<String> notes(StudyOptions options) {
    List<String> notes = new ArrayList<>();
    if (peers()) {
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
              + " worker processes, no session cache or tickets,"
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
    notes.add(
        "the client runs the same TLS engine as the server it calls, on the same machine: the figures are the server's CPU per transaction,"
            + " by its pid, while the client's share of the cores bounds the rate");
    if (engineFlags.contains(TlsEngine.JSSE.flag))
      notes.add(
          LegacyTls.note()
              + "; JSSE's disabled list in those JVMs: "
              + LegacyTls.disabledAlgorithms());
    notes.add(
        "where an engine refuses the original, the nearest substitute: the same TLS 1.0 RSA key exchange and RSA-1024 key with the same cipher"
            + " family, else the next slower column of IBM's table; a faster class only where nothing slower is left, and then the cell says FASTER;"
            + " where both engines substitute in a column they measure the same substitute");
    if (options.quick()) {
      notes.add(
          "quick: every column, four workers without a probe, 0.2 s iterations (servers warmed until steady, at most 1 s; 3 × 0.25 s measured); for sizing: --duration 30s");
    }
    return notes;
  }
}
