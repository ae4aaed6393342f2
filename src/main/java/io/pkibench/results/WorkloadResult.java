package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.files.InputFile;
import io.pkibench.plan.MixSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One workload across its levels; {@code failure} says why it stopped early (null when it ran every
 * level). {@code step} is set when a study ran it: which step, and whether it was the probe that
 * chose the measured level or the measurement itself (absent from plain runs, whose files stay as
 * they were). {@code outcomes}: answers counted apart by workloads that have them (an OCSP
 * responder's good, revoked, unknown), all levels, warm-ups included; {@code notes}: what qualifies
 * the figures (tokens not verified). Both absent when empty, so files of other workloads stay as
 * they were. {@code mix}: the members, weights and seed of a traffic mix (absent for any other
 * workload), whose levels split their figures by member. {@code wycheproof}: a PKCS#11 token's
 * verifier put to Project Wycheproof's vectors by the run (absent for every other key source and
 * workload).
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
  public record Transition(Instant at, boolean up, String why) {}

  /**
   * The study step a workload entry belongs to; {@code role} is {@link #PROBE} or {@link #MEASURE}.
   */
  public record Step(String label, String role) {
    public static final String PROBE = "probe";
    public static final String MEASURE = "measure";

    @JsonIgnore
    public boolean probe() {
      return PROBE.equals(role);
    }
  }

  public WorkloadResult {
    params = Map.copyOf(params);
    levels = List.copyOf(levels);
    keyNodes = keyNodes == null ? List.of() : List.copyOf(keyNodes);
    outcomes = outcomes == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(outcomes));
    notes = notes == null ? List.of() : List.copyOf(notes);
    inputs = inputs == null ? List.of() : List.copyOf(inputs);
  }

  public WorkloadResult withLevel(LevelResult level) {
    List<LevelResult> list = new ArrayList<>(levels);
    list.add(level);
    return toBuilder().levels(list).build();
  }

  public WorkloadResult withFailure(String why) {
    return toBuilder().failure(why).build();
  }

  public WorkloadResult withStep(Step newStep) {
    return toBuilder().step(newStep).build();
  }

  public WorkloadResult withKeyNodes(List<KeyNode> nodes) {
    return toBuilder().keyNodes(nodes).build();
  }

  /** With {@code counts} added to the outcomes counted so far. */
  public WorkloadResult plusOutcomes(Map<String, Long> counts) {
    Map<String, Long> sum = new TreeMap<>(outcomes);
    counts.forEach((k, n) -> sum.merge(k, n, Long::sum));
    return toBuilder().outcomes(sum).build();
  }

  public WorkloadResult withNotes(List<String> newNotes) {
    return toBuilder().notes(newNotes).build();
  }

  public WorkloadResult withMix(MixSpec newMix) {
    return toBuilder().mix(newMix).build();
  }

  public WorkloadResult withWycheproof(WycheproofCheck check) {
    return toBuilder().wycheproof(check).build();
  }

  public WorkloadResult withInputs(List<InputFile> files) {
    return toBuilder().inputs(files).build();
  }

  /**
   * A study's probe entry: its levels chose the measured one and are kept, but are not the study's
   * figures.
   */
  @JsonIgnore
  public boolean probe() {
    return step != null && step.probe();
  }

  /**
   * A workload entry built by naming its components, from its name: those not named are empty (no
   * params, levels, key nodes, outcomes or notes) or absent.
   */
  public static Builder builder(String name) {
    return new Builder().name(name);
  }

  /** A builder holding this entry's components, to change some of them. */
  public Builder toBuilder() {
    return new Builder()
        .name(name)
        .params(params)
        .keys(keys)
        .cpuMeter(cpuMeter)
        .levels(levels)
        .failure(failure)
        .step(step)
        .keyNodes(keyNodes)
        .outcomes(outcomes)
        .notes(notes)
        .mix(mix)
        .wycheproof(wycheproof)
        .inputs(inputs);
  }

  /**
   * Names the components of a {@link WorkloadResult}; {@link #build()} copies them as the record
   * does.
   */
  public static final class Builder {
    private String name;
    private Map<String, String> params = Map.of();
    private String keys;
    private String cpuMeter;
    private List<LevelResult> levels = List.of();
    private String failure;
    private Step step;
    private List<KeyNode> keyNodes = List.of();
    private Map<String, Long> outcomes = Map.of();
    private List<String> notes = List.of();
    private MixSpec mix;
    private WycheproofCheck wycheproof;
    private List<InputFile> inputs = List.of();

    private Builder() {}

    public Builder name(String name) {
      this.name = name;
      return this;
    }

    public Builder params(Map<String, String> params) {
      this.params = params;
      return this;
    }

    public Builder keys(String keys) {
      this.keys = keys;
      return this;
    }

    public Builder cpuMeter(String cpuMeter) {
      this.cpuMeter = cpuMeter;
      return this;
    }

    public Builder levels(List<LevelResult> levels) {
      this.levels = levels;
      return this;
    }

    public Builder failure(String failure) {
      this.failure = failure;
      return this;
    }

    public Builder step(Step step) {
      this.step = step;
      return this;
    }

    public Builder keyNodes(List<KeyNode> keyNodes) {
      this.keyNodes = keyNodes;
      return this;
    }

    public Builder outcomes(Map<String, Long> outcomes) {
      this.outcomes = outcomes;
      return this;
    }

    public Builder notes(List<String> notes) {
      this.notes = notes;
      return this;
    }

    public Builder mix(MixSpec mix) {
      this.mix = mix;
      return this;
    }

    public Builder wycheproof(WycheproofCheck wycheproof) {
      this.wycheproof = wycheproof;
      return this;
    }

    public Builder inputs(List<InputFile> inputs) {
      this.inputs = inputs;
      return this;
    }

    public WorkloadResult build() {
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
          inputs);
    }
  }
}
