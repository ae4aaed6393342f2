package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.files.InputFile;
import io.pkibench.plan.MixSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One workload across its levels; {@code failure} says why it stopped early (null when it ran every
 * level). {@code step} is set when a study ran it: which step, and whether it was the probe that
 * chose the measured level or the measurement itself (absent from plain runs, whose files stay as
 * they were). {@code outcomes}: answers counted apart by workloads that have them (an OCSP
 * responder's good, revoked, unknown), all levels, warm-ups included; {@code notes}: what qualifies
 * the figures (tokens not verified). Both absent when empty, so files of other workloads stay as
 * they were. {@code mix}: the members, weights and seed of a traffic mix (absent for any other
 * workload), whose levels split their figures by member. {@code inputs}: the files the parameters
 * name whose text the result keeps (an {@code api} spec, secrets blanked, with its sha256); absent
 * for the workloads that name none. {@code wycheproof}: a PKCS#11 token's verifier put to Project
 * Wycheproof's vectors by the run (absent for every other key source and workload).
 */
public record WorkloadResult(
    String name,
    Map<String, String> params,
    String keys,
    String cpuMeter,
    List<LevelResult> levels,
    String failure,
    @JsonInclude(JsonInclude.Include.NON_NULL) Step step,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<KeyNode> keyNodes,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Long> outcomes,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> notes,
    @JsonInclude(JsonInclude.Include.NON_NULL) MixSpec mix,
    @JsonInclude(JsonInclude.Include.NON_NULL) WycheproofCheck wycheproof,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<InputFile> inputs) {

  public WorkloadResult(
      String name,
      Map<String, String> params,
      String keys,
      String cpuMeter,
      List<LevelResult> levels,
      String failure,
      Step step,
      List<KeyNode> keyNodes,
      Map<String, Long> outcomes,
      List<String> notes) {
    this(
        name, params, keys, cpuMeter, levels, failure, step, keyNodes, outcomes, notes, null, null);
  }

  /**
   * A key-server node of a {@code remote:} key source and its share of the workload's calls (all
   * levels, warm-ups included): absent for other sources.
   */
  public record KeyNode(
      String node,
      int weight,
      long calls,
      long failures,
      boolean upAtEnd,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Transition> transitions) {
    public KeyNode {
      transitions = transitions == null ? List.of() : List.copyOf(transitions);
    }
  }

  /** A node taken out ({@code up} false) or rejoining, when the client saw it, and why. */
  public record Transition(java.time.Instant at, boolean up, String why) {}

  /**
   * The study step a workload entry belongs to; {@code role} is {@link #PROBE} or {@link #MEASURE}.
   */
  public record Step(String label, String role) {
    public static final String PROBE = "probe";
    public static final String MEASURE = "measure";

    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean probe() {
      return PROBE.equals(role);
    }
  }

  public WorkloadResult {
    params = Map.copyOf(params);
    levels = List.copyOf(levels);
    keyNodes = keyNodes == null ? List.of() : List.copyOf(keyNodes);
    outcomes =
        outcomes == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(outcomes));
    notes = notes == null ? List.of() : List.copyOf(notes);
    inputs = inputs == null ? List.of() : List.copyOf(inputs);
  }

  /** Without input files: the workloads that name none. */
  public WorkloadResult(
      String name,
      Map<String, String> params,
      String keys,
      String cpuMeter,
      List<LevelResult> levels,
      String failure,
      Step step,
      List<KeyNode> keyNodes,
      Map<String, Long> outcomes,
      List<String> notes,
      MixSpec mix,
      WycheproofCheck wycheproof) {
    this(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        failure,
        step,
        keyNodes,
        outcomes,
        notes,
        mix,
        wycheproof,
        List.of());
  }

  public WorkloadResult withInputs(List<InputFile> files) {
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        failure,
        step,
        keyNodes,
        outcomes,
        notes,
        mix,
        wycheproof,
        files);
  }

  public WorkloadResult(
      String name,
      Map<String, String> params,
      String keys,
      String cpuMeter,
      List<LevelResult> levels,
      String failure,
      Step step,
      List<KeyNode> keyNodes) {
    this(
        name, params, keys, cpuMeter, levels, failure, step, keyNodes, Map.of(), List.of(), null,
        null);
  }

  public WorkloadResult(
      String name,
      Map<String, String> params,
      String keys,
      String cpuMeter,
      List<LevelResult> levels,
      String failure) {
    this(
        name, params, keys, cpuMeter, levels, failure, null, List.of(), Map.of(), List.of(), null,
        null);
  }

  public WorkloadResult(
      String name,
      Map<String, String> params,
      String keys,
      String cpuMeter,
      List<LevelResult> levels,
      String failure,
      Step step) {
    this(
        name, params, keys, cpuMeter, levels, failure, step, List.of(), Map.of(), List.of(), null,
        null);
  }

  public WorkloadResult withLevel(LevelResult level) {
    List<LevelResult> list = new ArrayList<>(levels);
    list.add(level);
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        list,
        failure,
        step,
        keyNodes,
        outcomes,
        notes,
        mix,
        wycheproof,
        inputs);
  }

  public WorkloadResult withFailure(String why) {
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        why,
        step,
        keyNodes,
        outcomes,
        notes,
        mix,
        wycheproof,
        inputs);
  }

  public WorkloadResult withStep(Step newStep) {
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        failure,
        newStep,
        keyNodes,
        outcomes,
        notes,
        mix,
        wycheproof,
        inputs);
  }

  public WorkloadResult withKeyNodes(List<KeyNode> nodes) {
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        failure,
        step,
        nodes,
        outcomes,
        notes,
        mix,
        wycheproof,
        inputs);
  }

  /** With {@code counts} added to the outcomes counted so far. */
  public WorkloadResult plusOutcomes(Map<String, Long> counts) {
    Map<String, Long> sum = new java.util.TreeMap<>(outcomes);
    counts.forEach((k, n) -> sum.merge(k, n, Long::sum));
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        failure,
        step,
        keyNodes,
        sum,
        notes,
        mix,
        wycheproof,
        inputs);
  }

  public WorkloadResult withNotes(List<String> newNotes) {
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        failure,
        step,
        keyNodes,
        outcomes,
        newNotes,
        mix,
        wycheproof,
        inputs);
  }

  public WorkloadResult withMix(MixSpec newMix) {
    return new WorkloadResult(
        name,
        params,
        keys,
        cpuMeter,
        levels,
        failure,
        step,
        keyNodes,
        outcomes,
        notes,
        newMix,
        wycheproof,
        inputs);
  }

  public WorkloadResult withWycheproof(WycheproofCheck check) {
    return new WorkloadResult(
        name, params, keys, cpuMeter, levels, failure, step, keyNodes, outcomes, notes, mix, check,
        inputs);
  }

  /**
   * A study's probe entry: its levels chose the measured one and are kept, but are not the study's
   * figures.
   */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean probe() {
    return step != null && step.probe();
  }
}
