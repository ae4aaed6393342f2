package io.pkibench.workload.ades;

import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The B-B and B-T members of one AdES form ({@code cades}/{@code cades-t}, {@code pades}/{@code
 * pades-t}): name and description by level.
 */
abstract class LevelPairFactory implements WorkloadFactory {
  private final String form;
  private final boolean timestamped;
  private final String description;

  LevelPairFactory(String form, boolean timestamped, String baselineB, String baselineT) {
    this.form = form;
    this.timestamped = timestamped;
    this.description = timestamped ? baselineT : baselineB;
  }

  @Override
  public String name() {
    return timestamped ? form + "-t" : form;
  }

  @Override
  public String description() {
    return description;
  }

  boolean timestamped() {
    return timestamped;
  }

  /**
   * The B-T level's TSA parameters ({@code -p tsa}, {@code -p tsa-trust}) after the form's own; the
   * B-B level has none.
   */
  List<ParamSpec> withTsa(List<ParamSpec> own) {
    if (!timestamped) return own;
    List<ParamSpec> all = new ArrayList<>(own);
    all.add(Signers.TSA);
    all.add(Signers.TSA_TRUST);
    return List.copyOf(all);
  }

  @Override
  public List<String> problems(Params params, String keys) {
    return timestamped ? Signers.tsaProblems(params) : List.of();
  }

  @Override
  public List<String> notes(Params params) {
    return timestamped ? Signers.tsaNotes(params) : List.of();
  }

  @Override
  public List<String> services(Params params) {
    return timestamped ? Signers.tsaServices(params) : List.of();
  }
}
