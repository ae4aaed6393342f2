package io.pkibench.study;

import static io.pkibench.study.TlsTransactions.label;

import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.StudyRecord;
import io.pkibench.session.ForkedSeries;
import io.pkibench.study.TlsTransactions.Transaction;
import io.pkibench.workload.api.ParamSpec;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Study 5 (docs/studies/ssl.md; IBM i 6.1 Performance Capabilities Reference, tables 5.6 and 5.7):
 * the netperf-style transactions RR 128 B, ACRR 8 KB and Stream 16 KB, each over plain TCP and over
 * each of the original's cipher suites, against {@code serve tlsecho} in its own JVM; the figure is
 * transactions per server CPU-second (the server's pid only), and the CPU cost of each suite
 * relative to plain TCP. Before anything starts, each original configuration (suite, TLS 1.0,
 * RSA-1024 key) is tried on loopback with the engine; where the runtime refuses it, the cell
 * measures a named modern substitute (TLS 1.2/1.3, RSA-2048) and the result says what was refused
 * and why. One of the two studies behind {@code study ssl} ({@link SslStudy}).
 */
final class IbmTlsTable implements Study {
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
              : "-" + measured.keyFlag() + "-" + measured.protocol().toLowerCase(Locale.ROOT));
    }
  }

  private final List<String> engineFlags;

  /**
   * How to start another JVM of this program: where JSSE's attempts run with the legacy security
   * properties.
   */
  private final List<String> javaCommand = ForkedSeries.thisJvm();

  private String legacyOption;
  private List<Choice> choices;
  private StudyOptions choicesFor;

  IbmTlsTable(List<String> engineFlags) {
    this.engineFlags = List.copyOf(engineFlags);
  }

  private static final StudyInfo INFO =
      new StudyInfo(
          "ssl",
          "TLS transactions per server CPU by transaction type and cipher suite (after IBM i 6.1, tables 5.6 and 5.7)",
          StudyRecord.Unit.TPS_PER_SERVER_CPU,
          published(),
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
        "IBM i 6.1 Performance Capabilities Reference, table 5.6 (docs/studies/ssl.md)",
        "IBM i 6.1 on the IBM Power hardware described in that chapter, with IBM i's own TLS implementation",
        list,
        new StudyRecord.Unit("tps per CPU-%", 0.01, StudyRecord.Unit.PER_SERVICE_CPU_SECOND),
        new StudyRecord.Condition(
            "the server's CPU measured (the figures are per server CPU)", null),
        List.of());
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
    choices = choicesFor(options, COLUMNS);
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
    BiFunction<TlsEngine, TlsAttempt, LegacyTls.Outcome> outcome =
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
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(
          "cannot read the test PKI's TLS server keys: " + e.getMessage(), e);
    }
  }

  /** The JVM option naming the legacy security properties file, written once per study. */
  private String legacyOption() {
    if (legacyOption == null) legacyOption = LegacyTls.jvmOption();
    return legacyOption;
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
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

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    List<Step> steps = new ArrayList<>();
    for (Transaction t : TRANSACTIONS) {
      steps.add(
          TlsTransactions.step(
              options, label(t, PLAIN, ""), spec(t, services.url(PLAIN), null), PLAIN));
      for (Column column : COLUMNS) {
        for (Choice c : choices(options)) {
          if (c.column() != column || c.measured() == null) continue;
          Step step =
              TlsTransactions.step(
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
    columns.addAll(COLUMNS.stream().map(Column::label).toList());
    return new StudyRecord.Grid(
        "transaction",
        "cipher suite",
        TRANSACTIONS.stream().map(Transaction::label).toList(),
        columns,
        PLAIN,
        engineFlags,
        cells);
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

  @Override
  public List<String> notes(StudyOptions options) {
    List<String> notes = new ArrayList<>();
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
