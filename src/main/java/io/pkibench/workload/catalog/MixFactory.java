package io.pkibench.workload.catalog;

import io.pkibench.engine.MixWorkload;
import io.pkibench.plan.MixSpec;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * A traffic mix as one workload: its members' factories, each with the parameters given to it,
 * asked as one (problems, notes, outside services, connections per worker) and created together
 * into a {@link MixWorkload}. Built by {@link WorkloadCatalog#factoryOf} once every member is
 * known.
 */
public final class MixFactory implements WorkloadFactory {
  public static final String NAME = "mix";

  /**
   * Why a mix's CPU per operation is the mix's and no member's: recorded with the result as a note.
   */
  public static final String CPU_NOTE =
      "CPU per operation is the mix's: one process serves every member at once, so its CPU cannot be"
          + " split between them (run a member alone for its own)";

  private final MixSpec mix;
  private final List<WorkloadFactory> factories;

  MixFactory(MixSpec mix, List<WorkloadFactory> factories) {
    this.mix = mix;
    this.factories = List.copyOf(factories);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    List<String> parts = new ArrayList<>();
    for (MixSpec.Member m : mix.members()) parts.add(m.label() + "=" + m.weight());
    return "a traffic mix of " + String.join(",", parts);
  }

  /** A mix takes no parameters of its own: each member has its own. */
  @Override
  public List<ParamSpec> params() {
    return List.of();
  }

  @Override
  public boolean usesKeys() {
    return factories.stream().anyMatch(WorkloadFactory::usesKeys);
  }

  /** Member {@code i}'s factory, as {@link #params(int)} gives its parameters. */
  public WorkloadFactory member(int i) {
    return factories.get(i);
  }

  /** How many members the mix has. */
  public int memberCount() {
    return factories.size();
  }

  /**
   * Member {@code i}'s parameters, its defaults filled in; throws naming the member and {@code -p}
   * when one is refused.
   */
  public Params params(int i) {
    MixSpec.Member m = mix.members().get(i);
    try {
      return Params.resolve(m.name(), factories.get(i).params(), m.params());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(prefixed(m, e.getMessage()), e);
    }
  }

  private static String prefixed(MixSpec.Member m, String problem) {
    return "mix member "
        + m.label()
        + ": "
        + problem.replace("\n", "\nmix member " + m.label() + ": ");
  }

  @Override
  public List<String> problems(Params ignored, String keys) {
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < factories.size(); i++) {
      MixSpec.Member m = mix.members().get(i);
      try {
        for (String p : factories.get(i).problems(params(i), keys)) problems.add(prefixed(m, p));
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    return problems;
  }

  @Override
  public List<String> notes(Params ignored) {
    List<String> notes = new ArrayList<>(List.of(CPU_NOTE));
    for (int i = 0; i < factories.size(); i++) {
      for (String n : factories.get(i).notes(params(i)))
        notes.add(prefixed(mix.members().get(i), n));
    }
    return notes;
  }

  @Override
  public List<String> services(Params ignored) {
    List<String> services = new ArrayList<>();
    for (int i = 0; i < factories.size(); i++) {
      for (String s : factories.get(i).services(params(i)))
        if (!services.contains(s)) services.add(s);
    }
    return services;
  }

  /** Every worker may draw any member, so each member's needs are asked with all the workers. */
  @Override
  public List<String> workerProblems(Params ignored, int workers, String level) {
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < factories.size(); i++) {
      for (String p : factories.get(i).workerProblems(params(i), workers, level))
        problems.add(prefixed(mix.members().get(i), p));
    }
    return problems;
  }

  /** Every worker holds an operation of each member at once, so their connections add up. */
  @Override
  public int socketsPerWorker(Params ignored) {
    int sum = 0;
    for (int i = 0; i < factories.size(); i++) sum += factories.get(i).socketsPerWorker(params(i));
    return sum;
  }

  @Override
  public long sourceAddresses(Params ignored) {
    long fewest = Long.MAX_VALUE;
    for (int i = 0; i < factories.size(); i++)
      fewest = Math.min(fewest, factories.get(i).sourceAddresses(params(i)));
    return fewest;
  }

  /**
   * The mix as it runs, each member's parameters with their defaults filled in: what the result
   * records.
   */
  public MixSpec resolved() {
    List<MixSpec.Member> members = new ArrayList<>();
    for (int i = 0; i < factories.size(); i++)
      members.add(mix.members().get(i).withParams(params(i).asMap()));
    return new MixSpec(members, mix.seed());
  }

  @Override
  public Workload create(WorkloadContext context, Params ignored) throws Exception {
    List<Workload> created = new ArrayList<>();
    try {
      for (int i = 0; i < factories.size(); i++)
        created.add(factories.get(i).create(context, params(i)));
    } catch (Exception | Error e) {
      for (Workload w : created) {
        try {
          w.close();
        } catch (Exception closing) {
          e.addSuppressed(closing);
        }
      }
      throw e;
    }
    double[] weights = mix.members().stream().mapToDouble(MixSpec.Member::weight).toArray();
    return new MixWorkload(
        mix.members().stream().map(MixSpec.Member::label).toList(), weights, created, mix.seed());
  }
}
