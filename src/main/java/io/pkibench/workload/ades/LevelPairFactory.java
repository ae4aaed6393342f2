package io.pkibench.workload.ades;

import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadFactory;

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
  java.util.List<ParamSpec> withTsa(java.util.List<ParamSpec> own) {
    if (!timestamped) return own;
    java.util.List<ParamSpec> all = new java.util.ArrayList<>(own);
    all.add(Signers.TSA);
    all.add(Signers.TSA_TRUST);
    return java.util.List.copyOf(all);
  }

  @Override
  public java.util.List<String> problems(Params params, String keys) {
    return timestamped ? Signers.tsaProblems(params) : java.util.List.of();
  }

  @Override
  public java.util.List<String> notes(Params params) {
    return timestamped ? Signers.tsaNotes(params) : java.util.List.of();
  }

  @Override
  public java.util.List<String> services(Params params) {
    return timestamped ? Signers.tsaServices(params) : java.util.List.of();
  }
}
