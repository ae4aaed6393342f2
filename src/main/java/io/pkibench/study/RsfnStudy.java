package io.pkibench.study;

import io.pkibench.files.OutputFiles;
import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.formats.rsfn.Treatment;
import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.StudyRecord;
import io.pkibench.workload.api.KeptAnswers;
import io.pkibench.workload.rsfn.RsfnWorkloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Study 3 (docs/studies/rsfn.md): RSFN security protocol 3 packaging and unpackaging of a 1 KiB
 * payload, done by two key-server nodes (own JVMs, 50/50) for a client that keeps N calls pending,
 * N from 1 to 512 on virtual threads. Each round as the original: restart both nodes, run once and
 * discard it, run five times and keep them. The CPU charged is the nodes' (both pids); each
 * operation is measured again at 64 pending calls charging the client's JVM, for ops per client
 * CPU-second.
 */
public final class RsfnStudy implements Study {
  private static final StudyInfo INFO =
      new StudyInfo(
          "rsfn",
          "RSFN protocol 3 packaging and unpackaging of 1 KiB by a two-node key server, 1 to 512 pending calls (after Prodist STS RSFN cluster 7.0.3)",
          StudyRecord.Unit.OPS_PER_SECOND,
          // The original published curves, not a table of figures: its shape is what ours is read
          // against.
          new StudyRecord.Published(
              "Prodist STS RSFN cluster 7.0.3 benchmarks (docs/studies/rsfn.md)",
              "a Java client balanced 50/50 over two key servers; throughput rises until 256 pending calls then falls; latency roughly flat"
                  + " under 50 ms up to 64; p99 accelerates from 128",
              List.of(),
              null,
              KeyServerNodes.CONDITION,
              List.of()),
          Duration.ofSeconds(10));

  @Override
  public StudyInfo info() {
    return INFO;
  }

  public static final String PACK = "packaging";
  public static final String UNPACK = "unpackaging";
  public static final String CLIENT_CPU = PixStudy.CLIENT_CPU;
  static final int CLIENT_CPU_LEVEL = 64;
  static final List<Integer> LEVELS = List.of(1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512);

  /** Quick keeps 128, where the original's p99 turns. */
  static final List<Integer> QUICK_LEVELS = List.of(1, 4, 16, 64, 128, 256, 512);

  private final List<Integer> quickLevels;

  /** {@code --save-samples}: where the packaging step keeps its first checked envelope, or null. */
  private final Path samples;

  public RsfnStudy() {
    this(QUICK_LEVELS);
  }

  /** A quick run over {@code quickLevels}: tests keep the sweep short. */
  RsfnStudy(List<Integer> quickLevels) {
    this(quickLevels, null);
  }

  private RsfnStudy(List<Integer> quickLevels, Path samples) {
    this.quickLevels = List.copyOf(quickLevels);
    this.samples = samples;
  }

  /**
   * This study with {@code --save-samples DIR}: the packaging step keeps the first envelope the
   * nodes packed whose check passed, and its payload, for {@link #samples} to hand out.
   */
  public RsfnStudy savingSamplesIn(Path dir) {
    return new RsfnStudy(quickLevels, dir);
  }

  /** Where the packaging step keeps its answer, under the samples directory. */
  static final String PACK_TOKEN = "rsfn-pack";

  @Override
  public List<String> problems(StudyOptions options) {
    return KeyServerNodes.problems(options);
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    return KeyServerNodes.services(options);
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    List<Integer> levels = options.quick() ? quickLevels : LEVELS;
    Iterations once = options.warmup("1x500ms", 1);
    Iterations kept = options.iterations("3x2s", 5);
    String remote = KeyServerNodes.remoteKeys(services);
    List<Step> steps = new ArrayList<>();
    List<WorkloadSpec> specs = new ArrayList<>();
    for (String[] op :
        List.of(new String[] {PACK, "rsfn-pack"}, new String[] {UNPACK, "rsfn-unpack"})) {
      WorkloadSpec spec = new WorkloadSpec(op[1], Map.of("mode", "remote", "size", "1024"), remote);
      specs.add(spec);
      // --save-samples: the nodes' own first checked envelope, kept by the measured step
      WorkloadSpec measured =
          samples != null && op[1].equals(PACK_TOKEN)
              ? new WorkloadSpec(
                  op[1],
                  Map.of(
                      "mode",
                      "remote",
                      "size",
                      "1024",
                      KeptAnswers.PARAM,
                      StudySamples.answers(samples, PACK_TOKEN).toString()),
                  remote)
              : spec;
      steps.add(
          Step.of(op[0], plan(measured, levels, once, kept, "services"))
              .beforeEachLevel(StepHook.restartServices()));
    }
    int clientLevel = clientLevel(options);
    for (int i = 0; i < 2; i++) {
      Step s = steps.get(i);
      steps.add(
          Step.of(
              s.label() + CLIENT_CPU,
              plan(specs.get(i), List.of(clientLevel), once, kept, "client").toBuilder()
                  .verifySample(CLIENT_CPU_VERIFY_SAMPLE)
                  .build()));
    }
    return steps;
  }

  /**
   * The client's side is measured at a level of the sweep (64, else its highest), so the report
   * sets the two costs per operation side by side.
   */
  private int clientLevel(StudyOptions options) {
    List<Integer> levels = options.quick() ? quickLevels : LEVELS;
    return levels.contains(CLIENT_CPU_LEVEL) ? CLIENT_CPU_LEVEL : levels.get(levels.size() - 1);
  }

  /**
   * Virtual threads: 512 pending calls need no 512 platform threads, and the nodes multiplex them
   * on one connection each.
   */
  /**
   * The steps that charge the client's CPU check one answer in this many: opening an envelope in
   * the client costs about what the node's packing does, and would be charged to the client.
   */
  static final int CLIENT_CPU_VERIFY_SAMPLE = PixStudy.CLIENT_CPU_VERIFY_SAMPLE;

  private static Plan plan(
      WorkloadSpec spec, List<Integer> levels, Iterations warmup, Iterations measure, String cpu) {
    // Every node's answer checked in the client (an envelope opened here, a payload compared),
    // whose CPU the node steps do not charge.
    return Plan.of(List.of(spec))
        .verify(true)
        .concurrency(levels)
        .warmup(warmup)
        .measure(measure)
        .threads(ThreadKind.VIRTUAL)
        .cpu(cpu)
        .build();
  }

  @Override
  public List<String> notes(StudyOptions options) {
    List<String> notes = new ArrayList<>();
    notes.add(
        (options.cpus().isShared()
                ? "the client and both key-server nodes share this machine's cores"
                : "both key-server nodes share CPU "
                    + options.cpus().services()
                    + ", the client CPU "
                    + options.cpus().client())
            + "; the original ran its client and two servers apart");
    notes.add(
        "each level as the original's round: both nodes restarted, one run discarded, "
            + (options.quick() ? 3 : 5)
            + " kept; the nodes pack and unpack"
            + " (their keys never leave them), the client keeps N calls pending on virtual threads over one connection per node");
    notes.add(
        "the CPU per operation is the nodes' (both pids), except in the steps named '"
            + CLIENT_CPU.strip()
            + "', which charge the client's JVM at "
            + clientLevel(options)
            + " pending calls");
    notes.add(
        "every node's answer checked in the client (ok counts the verified): a packed envelope opened"
            + " here with the recipient's key, its signature and headers checked and its payload compared"
            + " with the one sent; an unpacked payload compared with the one packed; the '"
            + CLIENT_CPU.strip()
            + "' steps check one in "
            + CLIENT_CPU_VERIFY_SAMPLE
            + " (their ok column V/S), so that the checks stay out of the client's figure");
    if (options.quick())
      notes.add(
          "quick: levels "
              + quickLevels
              + ", after each restart the nodes warmed half a second at a time until steady (at most 4 s; a level that never steadied is flagged, not fitted), then 3 runs of 2 s kept; the original's sweep: --duration 10s");
    return notes;
  }

  /**
   * Two envelopes from the study's sender to its recipient: {@code rsfn-pack.rsfn}, the first the
   * key-server nodes packed in the measured run whose check passed (encrypted, C04 0), with its
   * payload; and {@code rsfn-clear.rsfn}, one not encrypted (C04 3), whose signature openssl can
   * verify without the recipient's key: no step measures that treatment, so it is packed here, by
   * the codec the nodes run, and said to be. The certificates; and {@code check-rsfn.sh}. No
   * envelope passed in the run (or packaging did not run): no {@code rsfn-pack.rsfn}.
   */
  @Override
  public List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    Files.createDirectories(dir);
    var sender = keys.key(RsfnWorkloads.SENDER);
    var recipient = keys.key(RsfnWorkloads.RECIPIENT);
    var codec =
        Protocol3.forTestPki(
            pki, CaCodes.defaults(), clock, keys.provider("Cipher", "AES/GCM/NoPadding"));
    byte[] payload = RsfnWorkloads.payload(1024);
    List<Sample> samples = new ArrayList<>();
    if (StudySamples.take(dir, PACK_TOKEN, "rsfn-pack.rsfn", "rsfn-pack.payload"))
      samples.add(
          new Sample(
              "rsfn-pack.rsfn",
              "the first 1 KiB envelope the key-server nodes packed in the measured run whose check"
                  + " passed, from sender.pem to recipient.pem, encrypted (C04 0): header fields and"
                  + " serials; rsfn-pack.payload is what it carries",
              "bash check-rsfn.sh rsfn-pack.rsfn sender.pem recipient.pem",
              List.of("openssl")));
    StudySamples.deleteTree(dir.resolve(".answers"));
    OutputFiles.replace(
        dir.resolve("rsfn-clear.rsfn"),
        codec.pack(sender, recipient.certificate(), payload, Treatment.CLEAR));
    OutputFiles.replace(dir.resolve("sender.pem"), TestPki.pem(List.of(sender.certificate())));
    OutputFiles.replace(
        dir.resolve("recipient.pem"), TestPki.pem(List.of(recipient.certificate())));
    try (var script = RsfnStudy.class.getResourceAsStream("check-rsfn.sh")) {
      Path target = dir.resolve("check-rsfn.sh");
      OutputFiles.replaceScript(target, script.readAllBytes());
    }
    samples.add(
        new Sample(
            "rsfn-clear.rsfn",
            "1 KiB not encrypted (C04 3), packed by pkibench's codec in this process (no step measures"
                + " this treatment): header fields, serials, C15 over the payload",
            "bash check-rsfn.sh rsfn-clear.rsfn sender.pem recipient.pem",
            List.of("openssl")));
    return samples;
  }
}
