package io.pkibench.study;

import static io.pkibench.study.CaStudy.OPENBAO;

import io.pkibench.keys.TlsContexts;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ca study's checks after its runs: every ACME order accounted for, and OpenBao's own list of
 * what it issued against the run's count.
 */
final class CaChecks {
  private CaChecks() {}

  private static final String ACME_PREFIX = CaStudy.ACME + ":";

  static OpenBaoClient openBao(RunningServices services, Path tokenFile, Path pkiDir)
      throws Exception {
    Secret token =
        Secret.of(Files.readString(tokenFile, StandardCharsets.UTF_8).strip().toCharArray());
    try {
      return new OpenBaoClient(
          List.of(URI.create(services.url(OPENBAO))),
          token,
          TlsContexts.trusting(TestPki.open(pkiDir).certificate("root-ca")),
          Duration.ofSeconds(60));
    } finally {
      token.wipe();
    }
  }

  /** Every order accepted ended issued once or failed with its reason; no serial twice. */
  static final class OrdersAccounted implements PostCheck {
    @Override
    public String name() {
      return "every accepted ACME order issued and downloaded once, or failed with its reason; no serial twice";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) {
      long accepted = 0, issued = 0, failed = 0, lost = 0, twice = 0, problems = 0;
      long revoked = 0, refusedAgain = 0;
      Map<String, Long> reasons = new TreeMap<>();
      for (WorkloadResult w : result.workloads()) {
        if (!w.name().startsWith(ACME_PREFIX)) continue; // order, renew, revoke's set-up
        Map<String, Long> o = w.outcomes();
        o.forEach(
            (k, n) -> {
              if (k.startsWith("failed: ")) reasons.merge(k.substring(8), n, Long::sum);
            });
        accepted += o.getOrDefault("orders accepted", 0L);
        issued += o.getOrDefault("orders issued", 0L);
        failed += o.getOrDefault("orders failed", 0L);
        lost += o.getOrDefault("orders unaccounted", 0L);
        twice += o.getOrDefault("serials issued twice", 0L);
        problems += o.getOrDefault("ledger problems", 0L);
        revoked += o.getOrDefault("certificates revoked", 0L);
        refusedAgain += o.getOrDefault("second revokes refused alreadyRevoked", 0L);
      }
      String detail =
          String.format(
              Locale.ROOT,
              "%d orders accepted: %d issued, %d failed, %d neither; %d serials issued twice; %d ledger problems",
              accepted,
              issued,
              failed,
              lost,
              twice,
              problems);
      if (revoked > 0)
        detail +=
            String.format(
                Locale.ROOT,
                "; %d certificates revoked, %d second revokes refused alreadyRevoked",
                revoked,
                refusedAgain);
      if (!reasons.isEmpty())
        detail +=
            "; failed (probes and warm-ups included, an order cut off when its level ended among them): "
                + reasons;
      return lost == 0 && twice == 0 && problems == 0 && accepted == issued + failed
          ? Outcome.pass(detail)
          : Outcome.fail(detail);
    }
  }

  /**
   * OpenBao's own list of what it issued ({@code LIST pki/certs}) holds at least every certificate
   * the run counted issued (serials are its keys: none twice).
   */
  static final class OpenBaoListed implements PostCheck {
    private final Path tokenFile;
    private final Path pkiDir;

    OpenBaoListed(Path tokenFile, Path pkiDir) {
      this.tokenFile = tokenFile;
      this.pkiDir = pkiDir;
    }

    @Override
    public String name() {
      return "OpenBao's LIST pki/certs holds every certificate the run counted issued";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) throws Exception {
      long counted =
          result.workloads().stream()
              .filter(w -> w.name().startsWith("openbao:pki-"))
              .flatMap(w -> w.levels().stream())
              .flatMap(l -> l.iterations().stream())
              .filter(i -> !i.warmup())
              .mapToLong(i -> i.succeeded())
              .sum();
      try (OpenBaoClient client = openBao(services, tokenFile, pkiDir)) {
        List<String> serials = client.list("pki/certs");
        long distinct = serials.stream().distinct().count();
        String detail =
            serials.size()
                + " serials listed ("
                + distinct
                + " distinct); "
                + counted
                + " issued in measured iterations (warm-ups and probes issued more)";
        return distinct == serials.size() && serials.size() >= counted
            ? Outcome.pass(detail)
            : Outcome.fail(detail);
      }
    }
  }
}
