package io.pkibench.study;

import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the ca study says of its run: each step's figures read from the result, and its notes. */
final class CaFindings {
  private CaFindings() {}

  /**
   * Each step's whole-order and ACME-step latencies, and the cores each CA needs for the target
   * rate at {@link CaStudy#MAX_UTILISATION} of them, from its certificates per CA CPU-second; a
   * revocation step's revoke latency and revocations per CA CPU-second (its rate is the one
   * offered).
   */
  static List<String> findings(RunResult result, CaStudy.Options options) {
    List<String> findings = new ArrayList<>();
    for (WorkloadResult w : result.workloads()) {
      if (w.step() == null || w.step().probe() || w.levels().isEmpty()) continue;
      if (w.step().label().endsWith(CaFault.MARK)) continue; // a CA killed mid-step sizes nothing
      LevelResult l = w.levels().get(w.levels().size() - 1);
      boolean revoke = w.name().equals(CaStudy.ACME_REVOKE);
      String what = revoke ? "revocations" : "certificates";
      StringBuilder line = new StringBuilder(w.step().label()).append(": ");
      line.append(
          String.format(
              Locale.ROOT,
              "%.1f %s/s at %d workers%s; whole operation p50 %s, p99 %s",
              l.throughput().mean(),
              what,
              l.concurrency(),
              revoke ? " (offered " + trim(CaStudy.REVOKE_RATE) + "/s)" : "",
              millis(l.latencyNanos().p50()),
              millis(l.latencyNanos().p99())));
      Map<String, Long> o = w.outcomes();
      // a revocation step's orders were its set-up's: only its revoke step is its own
      for (String step :
          revoke ? List.of("revoke") : List.of("new-order", "authorize", "finalize", "download")) {
        Long p50 = o.get("step " + step + " p50 µs");
        Long p99 = o.get("step " + step + " p99 µs");
        if (p50 != null)
          line.append(
              String.format(
                  Locale.ROOT, "; %s p50 %.1f ms, p99 %.1f ms", step, p50 / 1e3, p99 / 1e3));
      }
      Double perCpu = l.cpu().opsPerCpuSecond();
      if (revoke && perCpu != null && perCpu > 0) {
        line.append(String.format(Locale.ROOT, "; %.1f revocations per CA CPU-second", perCpu));
      } else if (perCpu != null && perCpu > 0) {
        double cores = options.targetRate() / (perCpu * CaStudy.MAX_UTILISATION);
        line.append(
            String.format(
                Locale.ROOT,
                "; %.1f certificates per CA CPU-second: %.2f cores for %s/s at %.0f%% CPU (%s a day)",
                perCpu,
                cores,
                trim(options.targetRate()),
                CaStudy.MAX_UTILISATION * 100,
                perDay(options.targetRate())));
      } else {
        line.append(
            "; the CA's CPU was not measured here (a CA elsewhere: --cpu pid:N when it runs on this machine), so no cores");
      }
      findings.add(line.toString());
    }
    return findings;
  }

  private static String millis(double nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private static String perDay(double perSecond) {
    double day = perSecond * 86_400;
    return day >= 1e6
        ? String.format(Locale.ROOT, "%.1f million", day / 1e6)
        : String.format(Locale.ROOT, "%.0f", day);
  }

  /**
   * What the fault step showed of the CA it killed (its timeline is the report's, as for every
   * study's fault): Pebble forgets, OpenBao must not.
   */
  static List<String> fault(RunResult result) {
    List<String> lines = new ArrayList<>();
    for (WorkloadResult w : result.workloads()) {
      if (w.step() == null
          || w.step().probe()
          || !w.step().label().endsWith(CaFault.MARK)
          || w.levels().isEmpty()) continue;
      var counts = w.levels().get(0).counts();
      lines.add(
          w.step().label()
              + ": "
              + counts.succeeded()
              + " succeeded and "
              + counts.failed()
              + " failed through the kill; "
              + (w.name().startsWith(CaStudy.ACME + ":")
                  ? "Pebble keeps its accounts, orders and root in memory, so a restart forgets every"
                      + " order, as expected: each order in flight at the kill or asked of the new Pebble"
                      + " under an old account failed, and the ledger check accounts for every one; the"
                      + " workers registered "
                      + w.outcomes().getOrDefault("accounts made again", 0L)
                      + " accounts again (the new Pebble answered accountDoesNotExist) and fetched its new"
                      + " root "
                      + w.outcomes().getOrDefault("issuer roots fetched again", 0L)
                      + " time(s), after which orders were issued and verified again"
                  : "OpenBao keeps its storage on disk: its LIST pki/certs check holds every certificate"
                      + " the run counted issued, this step's included"));
    }
    return lines;
  }

  static List<String> notes(StudyOptions study, CaStudy.Options options, String pebbleValidation) {
    List<String> notes = new ArrayList<>();
    if (options.services().stream().anyMatch(s -> s.kind().equals(CaStudy.PEBBLE)))
      notes.add(
          "pebble: Let's Encrypt's test CA (Debian's), "
              + pebbleValidation
              + " and never sleeping, no nonce refused at random; in memory only (a restart forgets every order and makes a new root). It is a test server, not Boulder: its figures size"
              + " an ACME exchange and a Go CA's signing, not Let's Encrypt's production CA with its database, HSMs and CT logs");
    if (options.services().stream().anyMatch(s -> s.kind().equals(CaStudy.PEBBLE)))
      notes.add(
          "pebble's probe stops at 4 workers: Pebble 2.4's authorization handler holds the authorization's lock while it"
              + " looks the account up in its store; a new order holds the store's read lock while it scans every"
              + " authorization (waiting for that lock), and a request waiting to write the store keeps the first from"
              + " reading it: a lock cycle, every later request waits, CPU idle (a goroutine dump of a hung Pebble shows it; its main branch has the same code). It was seen at 16 workers and,"
              + " after some 1,300 orders, at 4. The client polls each challenge, not its authorization, which leaves the one"
              + " fetch per order that finds the challenge, and for the Pebble the study starts it keeps new orders and"
              + " authorization fetches from overlapping (-p serialize=new-order-and-authorization), which breaks the cycle;"
              + " a hung Pebble's orders would be counted failed. The new order's scan grows with the authorizations Pebble"
              + " holds, so its CPU per order grows with a run's length too");
    if (options.services().stream().anyMatch(s -> s.kind().equals(CaStudy.OPENBAO)))
      notes.add(
          "openbao: the pki engine's direct API (sign a CSR, issue a key and certificate), its CA the test PKI's intermediate-a with ECDSA P-256"
              + " certificates; ACME on OpenBao validates challenges for real (http-01 on port 80 of each name), which names made up here cannot pass");
    notes.add(
        "cores for a rate: --target-rate "
            + trim(options.targetRate())
            + "/s (default 60/s: about 5 million certificates a day, the order of Let's Encrypt's daily issuance as the issue states it,"
            + " approximate, not verified here) over the certificates each CA issued per CPU-second of its own, at 70% CPU");
    notes.add(
        "each ACME step's latencies (new-order, authorize, finalize, download) count warm-up and probe orders too; the whole order's are the measured iterations'");
    if (options.services().stream().anyMatch(CaStudy.Service::acme))
      notes.add(
          "renewal (acme:renew): each worker's first order gets its name, every later one renews it (same name, the pool's"
              + " next key, a new certificate whose serial must differ from the last); the CA may reuse the authorization it"
              + " validated before (Pebble: PEBBLE_AUTHZREUSE, left at its default), as a renewal at a public CA may."
              + " Revocation (acme:revoke, RFC 8555 §7.6, signed by the account key): offered at "
              + trim(CaStudy.REVOKE_RATE)
              + "/s from one worker, not probed to a ceiling, since each revocation needs a certificate issued before the"
              + " measured time (the worker's set-up orders as many as the step has slots, warm-up included, and 5 more);"
              + " each is checked answered 200 and a second revoke refused alreadyRevoked (within the operation: its whole"
              + " latency is two revokes', the revoke step's one). Its row gives the revoke's latency"
              + " and revocations per CA CPU-second, not a revocation ceiling");
    if (study.quick())
      notes.add(
          "quick: short probes (1, 4, 16 workers; Pebble 1, 2, 4) and 3 × 2 s measured: rough figures, not sizing figures; for"
              + " those: --duration 2m");
    notes.add(
        "the HTML report (--html) charts each CA's probe sweep: orders (certificates) per second, and p50/p99 of a whole order,"
            + " by concurrency; a row whose CA CPU stays well below 100% at its chosen level was held back by something"
            + " other than the CA's CPU (the client's core, the CA's own locks): read its certificates per CA CPU-second"
            + " there, not its rate");
    return notes;
  }
}
