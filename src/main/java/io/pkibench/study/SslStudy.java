package io.pkibench.study;

import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.pki.TestPki;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.server.nginx.NginxPeer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code study ssl}: one command, flags and result name for two studies. Without nginx among {@code
 * --server} it is study 5 (docs/studies/ssl.md), IBM's table of TLS transactions per server CPU by
 * cipher suite ({@link IbmTlsTable}); with nginx, the HTTPS transactions on serve tlsecho beside
 * nginx ({@link TlsServerComparison}). The flags are checked here, for both, before either starts.
 */
public final class SslStudy implements Study {
  static final String PKIBENCH = "pkibench";
  static final String NGINX = "nginx";

  private final List<String> engineFlags;

  /**
   * {@code --server}: pkibench (the IBM table on tlsecho), nginx beside it (the HTTPS transactions
   * on both, like for like).
   */
  private final List<String> servers;

  private final Path nginxDir;

  /** {@code --client-auth need}: mutual TLS on every server (the server comparison only). */
  private final boolean mutual;

  /** The study the flags chose: IBM's table, or the server comparison. */
  private final Study chosen;

  public SslStudy(List<String> engineFlags) {
    this(engineFlags, List.of(PKIBENCH), null);
  }

  /**
   * With nginx among {@code servers}, the study compares the servers ({@link TlsServerComparison})
   * and nginx runs from a configuration in {@code nginxDir}.
   */
  public SslStudy(List<String> engineFlags, List<String> servers, Path nginxDir) {
    this(engineFlags, servers, nginxDir, false);
  }

  /** As above, mutual TLS on every server when {@code mutual} (the server comparison only). */
  public SslStudy(List<String> engineFlags, List<String> servers, Path nginxDir, boolean mutual) {
    this.engineFlags = List.copyOf(engineFlags);
    this.servers = List.copyOf(servers);
    this.nginxDir = nginxDir;
    this.mutual = mutual;
    this.chosen =
        servers.contains(NGINX)
            ? new TlsServerComparison(engineFlags, servers, nginxDir, mutual)
            : new IbmTlsTable(engineFlags);
  }

  @Override
  public StudyInfo info() {
    return chosen.info();
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
    if (mutual && !servers.contains(NGINX)) {
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
              TlsServerKeys.ALIASES.get(IbmTlsTable.ORIGINAL_KEY),
              TlsServerKeys.ALIASES.get(IbmTlsTable.SUBSTITUTE_KEY))) {
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

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    return chosen.services(options);
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    return chosen.steps(options, services);
  }

  @Override
  public StudyRecord.Grid grid(StudyOptions options) {
    return chosen.grid(options);
  }

  @Override
  public StudyRecord.Grid gridAfterSteps(RunResult result, StudyOptions options) {
    return chosen.gridAfterSteps(result, options);
  }

  @Override
  public List<String> notes(StudyOptions options) {
    List<String> notes = new ArrayList<>(chosen.notes(options));
    notes.add(CHECKED);
    return notes;
  }

  /**
   * Why the ssl rows count no verified: the server's answer is the handshake, which the client's
   * TLS engine checks whether or not --verify is given.
   */
  static final String CHECKED =
      "nothing is verified apart (ok counts the operations done): the server's answer is the handshake itself, checked by the"
          + " client's TLS engine on every operation (the server's chain to the test PKI's root, its CertificateVerify signature,"
          + " Finished), and every echoed byte is compared with the one sent; a server answering wrongly fails the operation";

  @Override
  public List<String> findings(RunResult result, StudyOptions options) {
    return chosen.findings(result, options);
  }
}
