package io.pkibench.results;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.plan.Segment;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Adds up the results of the agents of one split plan ({@code --segment I/N}) into one ordinary
 * result: per workload, level and iteration, the counts, CPU, errors and latency histograms of
 * every agent are summed (a percentile is read from the summed histogram, never averaged), then
 * each level is summarised as a single run's is. An iteration's duration is the longest of the
 * agents' (they cover the same shared interval), so its throughput is never flattered. Refused,
 * with every problem at once and the files named: results of different plans, of different agent
 * counts, two files of one segment, and, unless allowed, a segment (or a segment's level) that is
 * missing.
 */
public final class SegmentMerge {
  private SegmentMerge() {}

  /** One agent's result as read from {@code file}. */
  public record Input(Path file, RunResult result) {}

  /** Why the files cannot be merged: each problem names the files and the fix. */
  public static final class Refused extends Exception {
    private final List<String> problems;

    public Refused(List<String> problems) {
      super(String.join("\n", problems));
      this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
      return problems;
    }
  }

  /**
   * The merged result; {@code allowMissing}: a missing segment (or level) leaves its share out,
   * said in the result, instead of refusing. {@code commandLine}: the merge's own, recorded as the
   * result's.
   */
  public static RunResult merge(List<Input> inputs, boolean allowMissing, String commandLine)
      throws Refused {
    List<String> problems = new ArrayList<>();
    if (inputs.isEmpty())
      throw new Refused(
          List.of(
              "give the result files of the agents, e.g. 'pkibench merge seg1.json seg2.json -o all.json'"));
    for (Input in : inputs) {
      if (in.result().agent() == null) {
        problems.add(
            in.file()
                + " is not an agent's result (it has no segment): run each agent with --segment I/N, e.g. --segment 1/4");
      }
    }
    if (!problems.isEmpty()) throw new Refused(problems);
    Input first = inputs.get(0);
    int agents = first.result().agent().segment().count();
    Map<Integer, Input> bySegment = new TreeMap<>();
    for (Input in : inputs) {
      Segment s = in.result().agent().segment();
      if (s.count() != agents) {
        problems.add(
            in.file()
                + " is segment "
                + s
                + " but "
                + first.file()
                + " is "
                + first.result().agent().segment()
                + ": the agents of one plan all split it the same number of ways");
        continue;
      }
      Input other = bySegment.putIfAbsent(s.index(), in);
      if (other != null) {
        problems.add(
            other.file()
                + " and "
                + in.file()
                + " are both segment "
                + s
                + " (overlapping): give each segment's file once");
      }
      String differs = firstDifference("plan", first.result().plan(), in.result().plan());
      if (differs != null) {
        problems.add(
            first.file()
                + " and "
                + in.file()
                + " ran different plans ("
                + differs
                + "): merge only the agents of one plan");
      }
    }
    List<String> absent = new ArrayList<>();
    for (int i = 1; i <= agents; i++) {
      if (!bySegment.containsKey(i)) absent.add("segment " + i + "/" + agents + " (no file given)");
    }
    if (!problems.isEmpty()) throw new Refused(problems);
    List<Input> present = List.copyOf(bySegment.values());

    int workloadCount =
        present.stream().mapToInt(in -> in.result().workloads().size()).max().orElse(0);
    List<WorkloadResult> merged = new ArrayList<>();
    for (int w = 0; w < workloadCount; w++) {
      merged.add(mergeWorkload(w, present, agents, absent, problems));
    }
    if (!absent.isEmpty() && !allowMissing) {
      problems.add(
          0,
          "missing: "
              + String.join("; ", absent)
              + "; give every segment's file, or --allow-missing to merge what is there"
              + " (the result then says which share is absent)");
    }
    if (!problems.isEmpty()) throw new Refused(problems);
    {
      // Said in every report of the file: a merged result reads as any other, and the table should
      // not hide where it came from.
      String note =
          absent.isEmpty()
              ? "merged from "
                  + agents
                  + " agents, each a segment of the plan: counts and histograms added per iteration (each agent's own figures: the result's merge section)"
              : "merged from "
                  + present.size()
                  + " of "
                  + agents
                  + " agents; absent: "
                  + String.join("; ", absent)
                  + " (their share of the load was not offered, nor is it counted)";
      merged =
          merged.stream()
              .map(
                  wr -> {
                    List<String> notes = new ArrayList<>(wr.notes());
                    if (wr.levels().stream().anyMatch(lv -> lv.timeline() != null))
                      notes.add(0, SegmentSums.TIMELINE_NOTE);
                    notes.add(0, note);
                    return wr.withNotes(notes);
                  })
              .toList();
    }

    Environment env = first.result().environment();
    Instant started =
        present.stream()
            .map(in -> in.result().environment().startedAt())
            .min(Comparator.naturalOrder())
            .orElse(env.startedAt());
    Environment mergedEnv =
        new Environment(
            env.toolVersion(),
            env.commit(),
            env.jdk(),
            env.os(),
            env.cpuModel(),
            coresOfHosts(present),
            env.memoryBytes(),
            env.providers(),
            commandLine,
            started);
    RunStatus status =
        absent.isEmpty()
            ? worst(present)
            : worst(present) == RunStatus.COMPLETE ? RunStatus.INTERRUPTED : worst(present);
    RunResult result =
        RunResult.builder()
            .schema(RunResult.SCHEMA)
            .environment(mergedEnv)
            .plan(first.result().plan())
            .status(status)
            .workloads(merged)
            .study(first.result().study())
            .build();
    return result.withMerge(
        new MergeRecord(agents, present.stream().map(SegmentMerge::section).toList(), absent));
  }

  /**
   * The cores of every host that ran an agent, each host once: local agents share one machine's.
   */
  private static int coresOfHosts(List<Input> present) {
    Map<String, Integer> cores = new LinkedHashMap<>();
    for (Input in : present)
      cores.putIfAbsent(in.result().agent().host(), in.result().environment().cores());
    return cores.values().stream().mapToInt(Integer::intValue).sum();
  }

  private static RunStatus worst(List<Input> present) {
    List<RunStatus> order =
        List.of(RunStatus.FAILED, RunStatus.INTERRUPTED, RunStatus.RUNNING, RunStatus.COMPLETE);
    return present.stream()
        .map(in -> in.result().status())
        .min(Comparator.comparingInt(order::indexOf))
        .orElse(RunStatus.FAILED);
  }

  private static WorkloadResult mergeWorkload(
      int w, List<Input> present, int agents, List<String> absent, List<String> problems) {
    List<Input> having = present.stream().filter(in -> in.result().workloads().size() > w).toList();
    WorkloadResult base = having.get(0).result().workloads().get(w);
    for (Input in : present) {
      if (in.result().workloads().size() <= w) {
        absent.add(
            describe(in)
                + " has no workload "
                + base.name()
                + " (its status: "
                + in.result().status()
                + ")");
      }
    }
    int levelCount =
        having.stream()
            .mapToInt(in -> in.result().workloads().get(w).levels().size())
            .max()
            .orElse(0);
    List<LevelResult> levels = new ArrayList<>();
    for (int l = 0; l < levelCount; l++) {
      List<Input> withLevel = new ArrayList<>();
      List<LevelResult> parts = new ArrayList<>();
      for (Input in : having) {
        List<LevelResult> ls = in.result().workloads().get(w).levels();
        if (ls.size() > l) {
          withLevel.add(in);
          parts.add(ls.get(l));
        } else {
          absent.add(
              describe(in)
                  + " has no level "
                  + (l + 1)
                  + " of "
                  + base.name()
                  + " (its status: "
                  + in.result().status()
                  + ")");
        }
      }
      levels.add(mergeLevel(base.name(), l, withLevel, parts, problems));
    }
    List<String> failures = new ArrayList<>();
    Map<String, Long> outcomes = new TreeMap<>();
    for (Input in : having) {
      WorkloadResult part = in.result().workloads().get(w);
      if (!part.name().equals(base.name())) {
        problems.add(
            having.get(0).file()
                + " and "
                + in.file()
                + " have different workloads at "
                + (w + 1)
                + " ("
                + base.name()
                + ", "
                + part.name()
                + ")");
      }
      if (part.failure() != null)
        failures.add("segment " + in.result().agent().segment() + ": " + part.failure());
      part.outcomes().forEach((k, n) -> outcomes.merge(k, n, Long::sum));
    }
    return WorkloadResult.builder(base.name())
        .params(base.params())
        .keys(base.keys())
        .cpuMeter(base.cpuMeter())
        .levels(levels)
        .failure(failures.isEmpty() ? null : String.join("; ", failures))
        .step(base.step())
        .keyNodes(keyNodes(having, w))
        .outcomes(outcomes)
        .notes(base.notes())
        .build();
  }

  private static String describe(Input in) {
    return "segment " + in.result().agent().segment() + " (" + in.file() + ")";
  }

  /** The key-server nodes' calls of every agent, added up node by node. */
  private static List<WorkloadResult.KeyNode> keyNodes(List<Input> having, int w) {
    Map<String, WorkloadResult.KeyNode> byNode = new LinkedHashMap<>();
    for (Input in : having) {
      for (WorkloadResult.KeyNode n : in.result().workloads().get(w).keyNodes()) {
        byNode.merge(
            n.node(),
            n,
            (a, b) -> {
              List<WorkloadResult.Transition> transitions = new ArrayList<>(a.transitions());
              transitions.addAll(b.transitions());
              return new WorkloadResult.KeyNode(
                  a.node(),
                  a.weight(),
                  a.calls() + b.calls(),
                  a.failures() + b.failures(),
                  a.upAtEnd() && b.upAtEnd(),
                  transitions);
            });
      }
    }
    return List.copyOf(byNode.values());
  }

  private static LevelResult mergeLevel(
      String workload, int l, List<Input> inputs, List<LevelResult> parts, List<String> problems) {
    boolean open = parts.get(0).openLoop() != null;
    int workers = 0;
    double rate = 0;
    Map<IterationKey, List<IterationResult>> byKey = new TreeMap<>();
    Map<IterationKey, List<String>> hostsByKey = new TreeMap<>();
    TreeSet<IterationKey> firstKeys = null;
    for (int a = 0; a < parts.size(); a++) {
      LevelResult part = parts.get(a);
      if ((part.openLoop() != null) != open) {
        problems.add(
            inputs.get(0).file()
                + " and "
                + inputs.get(a).file()
                + " ran level "
                + (l + 1)
                + " of "
                + workload
                + " one open-, one closed-loop");
        continue;
      }
      workers += part.concurrency();
      if (open) rate += part.openLoop().targetRate();
      TreeSet<IterationKey> keys = new TreeSet<>();
      for (IterationResult it : part.iterations()) {
        IterationKey key = new IterationKey(it.series(), it.warmup(), it.index());
        keys.add(key);
        byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(it);
        hostsByKey
            .computeIfAbsent(key, k -> new ArrayList<>())
            .add(inputs.get(a).result().agent().host());
      }
      if (firstKeys == null) firstKeys = keys;
      else if (!firstKeys.equals(keys)) {
        problems.add(
            inputs.get(0).file()
                + " and "
                + inputs.get(a).file()
                + " ran different iterations at level "
                + (l + 1)
                + " of "
                + workload
                + " ("
                + firstKeys.size()
                + " and "
                + keys.size()
                + "): a warm-up until steady stops when each agent sees fit; give a fixed --warmup");
      }
    }
    String meter = parts.get(0).cpu().meter();
    List<IterationResult> merged = new ArrayList<>();
    for (Map.Entry<IterationKey, List<IterationResult>> e : byKey.entrySet()) {
      merged.add(
          SegmentSums.sum(e.getValue(), hostsByKey.get(e.getKey()), OWN_PROCESS.equals(meter)));
    }
    int cores = coresOfHosts(inputs);
    LevelResult level = LevelResult.of(workers, open ? rate : null, merged, meter, cores);
    List<Timeline> timelines =
        parts.stream().map(LevelResult::timeline).filter(Objects::nonNull).toList();
    if (timelines.isEmpty()) return level;
    if (timelines.size() != parts.size()) {
      problems.add(
          "level "
              + (l + 1)
              + " of "
              + workload
              + ": some agents ran it on stages and some did not; merge only the agents of one plan");
      return level;
    }
    List<String> hosts = inputs.stream().map(in -> in.result().agent().host()).toList();
    return level.withTimeline(
        SegmentSums.mergeTimelines(timelines, hosts, OWN_PROCESS.equals(meter)));
  }

  /**
   * The CPU meter of each agent's own process: the one meter whose readings of agents on one host
   * are all different CPU.
   */
  static final String OWN_PROCESS = "jvm";

  /**
   * Where an iteration stands in a level: its series, warm-up or measured, its index; warm-ups
   * first, as a run writes them.
   */
  private record IterationKey(int series, boolean warmup, int index)
      implements Comparable<IterationKey> {
    @Override
    public int compareTo(IterationKey o) {
      return Comparator.comparingInt(IterationKey::series)
          .thenComparing(k -> !k.warmup())
          .thenComparingInt(IterationKey::index)
          .compare(this, o);
    }
  }

  private static MergeRecord.AgentSection section(Input in) {
    List<MergeRecord.AgentLevel> levels = new ArrayList<>();
    List<WorkloadResult> ws = in.result().workloads();
    for (int w = 0; w < ws.size(); w++) {
      for (LevelResult l : ws.get(w).levels()) {
        levels.add(
            new MergeRecord.AgentLevel(
                w,
                ws.get(w).name(),
                l.concurrency(),
                l.openLoop() == null ? null : l.openLoop().targetRate(),
                l.counts(),
                l.throughput().mean(),
                l.latencyNanos(),
                l.cpu()));
      }
    }
    return new MergeRecord.AgentSection(
        in.file().toString(),
        in.result().agent().segment(),
        in.result().agent(),
        in.result().status(),
        levels);
  }

  /** Where two plans first differ, by JSON path, or null when they are the same. */
  static String firstDifference(String at, JsonNode a, JsonNode b) {
    if (Objects.equals(a, b)) return null;
    if (a == null
        || b == null
        || !a.isContainerNode()
        || !b.isContainerNode()
        || a.isArray() != b.isArray()
        || a.size() != b.size()) {
      return at + ": " + a + " vs " + b;
    }
    if (a.isArray()) {
      for (int i = 0; i < a.size(); i++) {
        String d = firstDifference(at + "[" + i + "]", a.get(i), b.get(i));
        if (d != null) return d;
      }
    } else {
      for (var it = a.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        String d = firstDifference(at + "." + f, a.get(f), b.get(f));
        if (d != null) return d;
      }
    }
    return at + " differs";
  }
}
