package io.pkibench.cli;

import io.pkibench.study.CaStudy;
import io.pkibench.study.Study;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "ca",
    mixinStandardHelpOptions = true,
    header =
        "Study 7: how many certificates a CA issues per second and per CA CPU-second, over ACME and direct APIs.",
    description = {
      "Study 7: a CA sized by certificates issued per second and per CA CPU-second: whole ACME (RFC 8555) orders against Pebble, and",
      "OpenBao's pki engine's direct API (sign a CSR, issue). Each operation probed to the CA's CPU ceiling, then measured; every",
      "certificate verified apart from the CA and every accepted order accounted for; then the cores each CA needs for --target-rate.",
      "An ACME CA's steps: order (a fresh name), renew (the name the account already holds, a new key, a new serial) and revoke",
      "(offered at 10/s from one worker, each of its certificates issued before the measured time; a second revoke must be refused)."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench study ca --quick                               # Pebble started by the study: a few minutes",
      "  pkibench study ca --quick --service openbao             # OpenBao's pki engine, started by the study",
      "  pkibench study ca --service pebble,openbao --target-rate 120 --save-samples ca-samples/",
      "  pkibench study ca --quick --challenge http-01               # Pebble validates each order's http-01 for real",
      "  pkibench study ca --service acme:https://ca.internal:14000/dir --trust tls-root.pem --issuer-trust issuer-root.pem --cpu pid:4242",
      "",
      "Inherited flags: --service-cpus gives the CAs the study starts their cores (an outside CA keeps its own); --keys and --pin-file",
      "are refused (each CA signs with its own keys; the CSR keys are a pool the client makes); --segment, --agents and --concurrency are",
      "refused (one client process keeps every account and the order ledger the accounting reads).",
      "",
      "Pebble is probed at 1, 2 and 4 workers only: Debian's Pebble 2.4 (and its main branch) can stop answering for good under",
      "concurrent orders, a lock cycle in its in-memory store (an authorization's lock held while the store is read; the store's read",
      "lock held while a new order scans every authorization). It was seen at 16 workers and, after some 1,300 orders, at 4; the",
      "client polls challenges, not authorizations, which leaves one chance per order. A hung Pebble's orders are counted failed."
    })
final class StudyCa extends StudySubcommand {
  @Option(
      names = "--service",
      defaultValue = "pebble",
      paramLabel = "pebble,openbao,acme:URL,openbao:URL",
      description =
          "the CAs to measure, each alone in turn: pebble and openbao (started by the study), acme:URL (an ACME directory elsewhere),"
              + " openbao:URL (an OpenBao elsewhere, its token in $BAO_TOKEN) (default: ${DEFAULT-VALUE})")
  String service;

  @Option(
      names = "--trust",
      paramLabel = "CA.pem",
      description =
          "the root an outside CA's TLS certificate chains to (default: the test PKI's root)")
  Path trust;

  @Option(
      names = "--issuer-trust",
      paramLabel = "ROOT.pem",
      description =
          "the root an outside ACME CA's certificates chain to: every order is verified against it (needed with acme:URL)")
  Path issuerTrust;

  @Option(
      names = "--cpu",
      paramLabel = "pid:N",
      description =
          "the process whose CPU is the outside CA's, when it runs on this machine (as run's --cpu pid:N); without it an outside CA's CPU is not read")
  String cpu;

  @Option(
      names = "--target-rate",
      defaultValue = "60",
      paramLabel = "OPS_PER_S",
      description =
          "the certificates per second to size the CA's cores for (default: ${DEFAULT-VALUE}, about 5 million a day)")
  double targetRate;

  @Option(
      names = "--fault",
      paramLabel = "kill-service@TIME",
      description =
          "add a last step in which the first CA the study started is SIGKILLed TIME into its measured seconds and comes back"
              + " 10 s later, e.g. kill-service@20s: OpenBao on the same storage (every certificate counted issued must still"
              + " be in its list), Pebble anew (it forgets every account, order and its root: the orders cut off fail, counted"
              + " so, then each worker registers again, the new root is fetched, and orders succeed again)")
  String fault;

  @Option(
      names = "--challenge",
      defaultValue = "always-valid",
      paramLabel = "always-valid|http-01",
      description =
          "how the Pebble the study starts passes each order's challenge: always-valid (for load), or http-01: Pebble"
              + " validates for real, fetching each key authorization from pkibench's own loopback listener (default:"
              + " ${DEFAULT-VALUE})")
  String challenge;

  @Option(
      names = "--target",
      paramLabel = "URL",
      description = "refused: name a CA elsewhere with --service acme:URL or openbao:URL")
  String target;

  @Override
  Study study() {
    List<String> problems = new ArrayList<>();
    List<CaStudy.Service> services = CaStudy.Service.parse(service, problems);
    if (target != null)
      problems.add(
          "--target "
              + target
              + ": ca names a CA elsewhere with --service acme:URL (its ACME directory) or openbao:URL");
    if (shared.segment != null || shared.agents != null || shared.concurrency != null)
      problems.add(
          "--segment/--agents/--concurrency: ca runs one client process, which holds every account and the order ledger the"
              + " accounting after the run reads; agents would each see only their own orders. Leave them out");
    Long pid = null;
    if (cpu != null) {
      try {
        if (!cpu.startsWith("pid:")) throw new NumberFormatException();
        pid = Long.parseLong(cpu.substring(4));
      } catch (NumberFormatException e) {
        problems.add("--cpu " + cpu + ": write pid:N, the outside CA's process id on this machine");
      }
    }
    if (!challenge.equals("always-valid") && !challenge.equals("http-01"))
      problems.add(
          "--challenge "
              + challenge
              + ": give always-valid (Pebble passes every challenge, for load) or http-01 (validated for real)");
    String faultGiven = fault;
    try {
      CaStudy.checkFault(fault);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage()); // said with every other problem, before anything starts
      faultGiven = null;
    }
    CliContext ctx = study.parent.context;
    CaStudy ca =
        new CaStudy(
            new CaStudy.Options(
                services,
                trust == null ? null : ctx.resolve(trust),
                issuerTrust == null ? null : ctx.resolve(issuerTrust),
                pid,
                targetRate,
                shared.samples == null ? null : ctx.resolve(shared.samples),
                null,
                problems,
                challenge.equals("http-01")));
    return ca.withFault(faultGiven);
  }
}
