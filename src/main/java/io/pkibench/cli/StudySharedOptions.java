package io.pkibench.cli;

import io.pkibench.keys.catalog.KeySources;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every study takes. */
final class StudySharedOptions {
  @Option(
      names = "--quick",
      description =
          "short probes and a short measurement: rough figures of a barely warmed service, not sizing figures")
  boolean quick;

  @Option(
      names = "--smoke",
      description =
          "--quick with every iteration cut to at most half a second: the quickest proof that the study"
              + " runs and its checks pass here (the test suite's run), figures rougher still")
  boolean smoke;

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      description =
          "measured time per step (default: the study's, e.g. restpki 5m as its original, ssl 30s)")
  String duration;

  @Option(
      names = {"-o", "--out"},
      paramLabel = "FILE",
      description =
          "the one result file, every step in it (default: STUDY.json); FILE.hlog beside it; '-': the JSON to stdout"
              + " (and STUDY.json), everything else to stderr")
  Path out;

  @Option(names = "--html", paramLabel = "FILE.html", description = "also write the HTML report")
  Path html;

  @Option(
      names = "--save-samples",
      paramLabel = "DIR",
      description =
          "write the study's artifacts, with VERIFY.md and a verify.sh that checks each with an independent tool")
  Path samples;

  @Option(
      names = "--verify-sample",
      paramLabel = "N",
      description =
          "check one of the measured service's answers in N (default: every one); the figures count only"
              + " what was checked (the table's ok column is the verified count)")
  Integer verifySample;

  @Option(
      names = "--keys",
      defaultValue = "software",
      paramLabel = "SOURCE",
      description =
          "where the client and service keys live: software, pkcs11:CONFIG[,remote=unix:path=SOCKET], remote:HOST:PORT,… or openbao:URL,…,token-file=F, as run's --keys (default: ${DEFAULT-VALUE})")
  String keys;

  @Option(
      names = "--pki",
      paramLabel = "DIR",
      description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
  Path pki;

  @Option(
      names = "--pin-file",
      paramLabel = "FILE",
      description = "file holding the PKCS#11 PIN (else $" + KeySources.PIN_ENV + ")")
  Path pinFile;

  @Option(
      names = "--service-cpus",
      defaultValue = "auto",
      paramLabel = "LIST|auto|shared",
      description =
          "the cores the study's services run on (taskset), the client on the rest, each service's CPU measured against its own"
              + " cores, e.g. 0 or 0-3; auto (default): the first half of the cores; shared: no split")
  String serviceCpus;

  @Option(names = "--hang-grace", defaultValue = "60s", paramLabel = "DURATION", hidden = true)
  String hangGrace;

  @Option(names = "--profile", description = ProfileFlag.DESCRIPTION)
  boolean profile;

  @Option(
      names = "--agents",
      paramLabel = "N",
      description =
          "with --local: each step's chosen level run by N agent processes here, each its"
              + " share of the workers on one shared start, against the one set of services; the results merged per step (restpki)")
  Integer agents;

  @Option(
      names = "--local",
      description = "with --agents: the agents are processes on this machine")
  boolean local;

  @Option(
      names = "--segment",
      paramLabel = "I/N",
      description =
          "run as agent I of N of a study against a service running elsewhere (restpki: --target URL): no service started, no probe;"
              + " each step at --concurrency, this agent its share of the workers; 'pkibench merge' adds the N agents' results into the study's")
  String segment;

  @Option(
      names = "--concurrency",
      paramLabel = "N",
      description =
          "with --segment: the level every step is measured at, split over the agents (the coordinator's choice, the same on every agent)")
  Integer concurrency;

  @Option(
      names = "--start-at",
      paramLabel = "TIME",
      description =
          "with --segment: start the first warm-up at this UTC time (e.g. 2026-12-01T10:00:00Z), every step's iterations on one timetable all agents share")
  String startAt;

  @Option(
      names = "--start-in",
      paramLabel = "DURATION",
      description = "with --segment: as --start-at, that long from now (e.g. 30s)")
  String startIn;
}
