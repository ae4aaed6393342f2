package io.pkibench.study;

import io.pkibench.analysis.CoreRatio;
import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.CpuSet;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.Throughput;
import io.pkibench.results.WorkloadResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code study pix --core-ratio-sweep CLIENT:SERVICE,...}: one benchmark measured at each split of
 * the machine's cores between the client (this JVM and the series it forks) and the key servers
 * (both nodes together), to find the ratio from which one more core on either side stops paying
 * ({@link CoreRatio}): the seed's "1 generic : 2 cryptographic". Each split's services are
 * restarted on the first SERVICE cores of this process's CPUs and the client moved to the next
 * CLIENT cores; a split that does not fit this machine is refused before anything starts.
 */
public final class CoreRatioSweep {
  public static final String FLAG = "--core-ratio-sweep";

  /** Where the docs say how to run the sweep on a larger machine. */
  static final String DOCS = "docs/studies.md, 'The core ratio sweep'";

  /** One split: the client's cores and the key servers' (both nodes share them). */
  public record Cores(int client, int service) {
    int total() {
      return client + service;
    }

    @Override
    public String toString() {
      return client + ":" + service;
    }
  }

  private final String text;
  private final List<Cores> splits;

  private CoreRatioSweep(String text, List<Cores> splits) {
    this.text = text;
    this.splits = List.copyOf(splits);
  }

  /**
   * {@code CLIENT:SERVICE[,CLIENT:SERVICE...]}; every problem in one message, each naming the flag.
   */
  public static CoreRatioSweep parse(String text) {
    List<String> problems = new ArrayList<>();
    List<Cores> splits = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String p = part.trim();
      String[] sides = p.split(":", -1);
      Cores c = null;
      if (sides.length == 2) {
        try {
          c = new Cores(Integer.parseInt(sides[0].trim()), Integer.parseInt(sides[1].trim()));
        } catch (NumberFormatException e) {
          // said below
        }
      }
      if (c == null) {
        problems.add(
            FLAG
                + " "
                + text
                + ": '"
                + p
                + "' is not CLIENT:SERVICE cores; write e.g. 1:1,1:2,2:2 (client cores : key-server cores)");
      } else if (c.client() < 1 || c.service() < 1) {
        problems.add(
            FLAG + " " + text + ": split " + c + " gives a side no core; each gets 1 or more");
      } else if (splits.contains(c)) {
        problems.add(FLAG + " " + text + ": split " + c + " is given twice");
      } else {
        splits.add(c);
      }
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
    return new CoreRatioSweep(text, splits);
  }

  public List<Cores> splits() {
    return splits;
  }

  /** The cores the largest split needs. */
  int coresNeeded() {
    return splits.stream().mapToInt(Cores::total).max().orElse(0);
  }

  /**
   * Why the sweep cannot run with {@code cpus}: a split that does not fit the cores this process
   * may use (one line: which splits, how many cores the sweep needs, where the docs say how to run
   * it elsewhere), or no split of the cores at all.
   */
  List<String> problems(CpuSplit cpus) {
    CpuSet available;
    try {
      available = available(cpus);
    } catch (IOException e) {
      return List.of(FLAG + ": " + e.getMessage());
    }
    List<Cores> tooBig = splits.stream().filter(c -> c.total() > available.size()).toList();
    if (!tooBig.isEmpty()) {
      return List.of(
          FLAG
              + " "
              + text
              + ": this machine cannot test the ratio: it has "
              + available.size()
              + (available.size() == 1 ? " core" : " cores")
              + " (CPU "
              + available
              + ") and "
              + tooBig.stream()
                  .map(c -> "split " + c + " needs " + c.total())
                  .collect(Collectors.joining(", "))
              + "; run the sweep on a machine with at least "
              + coresNeeded()
              + " cores ("
              + DOCS
              + ")");
    }
    if (cpus.isShared())
      return List.of(
          FLAG
              + " with --service-cpus shared: the sweep gives the client and the key servers cores of their own at each split;"
              + " leave out --service-cpus");
    return List.of();
  }

  /** The cores there are to split: the study's split's two sides, or this process's. */
  private static CpuSet available(CpuSplit cpus) throws IOException {
    if (cpus.isShared()) return CpuAffinity.ofThisProcess();
    List<Integer> all = new ArrayList<>(cpus.services().cpus());
    all.addAll(cpus.client().cpus());
    return new CpuSet(all);
  }

  static String label(String step, Cores c) {
    return step + ", client:service cores " + c;
  }

  /**
   * {@code measured} once per split, each before it moving the services and the client onto the
   * split's cores; forked as {@code measured} is.
   */
  List<Step> steps(Step measured, CpuSplit cpus) {
    CpuSet available;
    try {
      available = available(cpus);
    } catch (IOException e) {
      throw new IllegalStateException(FLAG + ": " + e.getMessage(), e);
    }
    List<Step> steps = new ArrayList<>();
    for (Cores c : splits) {
      List<Integer> cpuList = available.cpus();
      CpuSplit split =
          new CpuSplit(
              new CpuSet(cpuList.subList(0, c.service())),
              new CpuSet(cpuList.subList(c.service(), c.total())));
      Step step = Step.of(label(measured.label(), c), measured.plan()).before(new MoveCores(split));
      steps.add(measured.forked() ? step.inForksWith(measured.forkJvmOptions()) : step);
    }
    return steps;
  }

  /** Restarts the services on the split's service cores and moves this JVM to its client cores. */
  record MoveCores(CpuSplit split) implements StepHook {
    @Override
    public String describe() {
      return "restart the key servers on CPU "
          + split.services()
          + " and move the client to CPU "
          + split.client();
    }

    @Override
    public void run(RunningServices services) throws Exception {
      // The client first: the services' restart is then not slowed by a client on their cores.
      CpuAffinity.pin(ProcessHandle.current().pid(), split.client());
      services.moveTo(split);
    }
  }

  /**
   * The sweep's answer from {@code result}: each measured split's throughput and spread, through
   * {@link CoreRatio}; splits not measured are named.
   */
  String answer(RunResult result, String step) {
    List<CoreRatio.Split> measured = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (Cores c : splits) {
      Optional<LevelResult> level = measured(result, label(step, c));
      if (level.isEmpty()) {
        missing.add(c.toString());
        continue;
      }
      Throughput x = level.get().throughput();
      measured.add(
          new CoreRatio.Split(
              c.client(),
              c.service(),
              x.mean(),
              x.stdev() == null ? Double.POSITIVE_INFINITY : x.stdev()));
    }
    String answer = CoreRatio.of(measured).text();
    return "core ratio ("
        + step
        + "): "
        + answer
        + (missing.isEmpty() ? "" : "; not measured: " + String.join(", ", missing));
  }

  private static Optional<LevelResult> measured(RunResult result, String label) {
    if (result.study() == null) return Optional.empty();
    return result.study().steps().stream()
        .filter(s -> s.label().equals(label) && s.measuredWorkload() != null)
        .findFirst()
        .map(StudyRecord.StepRecord::measuredWorkload)
        .map(i -> result.workloads().get(i))
        .map(WorkloadResult::levels)
        .filter(l -> !l.isEmpty())
        .map(l -> l.get(0));
  }

  /** What the result says the sweep did. */
  String note(int workers) {
    return "core ratio sweep: only the SPI signature, at "
        + workers
        + " workers, at each split "
        + splits.stream().map(Cores::toString).collect(Collectors.joining(", "))
        + " (client cores : key-server cores, both nodes sharing theirs); before each, the nodes restarted on"
        + " their cores and the client moved to its own (each step's hook names its CPUs; the --service-cpus note below is"
        + " only where the nodes started); one more core pays when it gains "
        + Math.round(100 * CoreRatio.PAYING_GAIN)
        + "% or more beyond the two splits' standard deviations (the seed's hypothesis: 1 generic : 2 cryptographic)";
  }
}
