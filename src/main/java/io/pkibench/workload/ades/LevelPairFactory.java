package io.pkibench.workload.ades;

import io.pkibench.workload.api.WorkloadFactory;

/** The B-B and B-T members of one AdES form ({@code cades}/{@code cades-t}, {@code pades}/{@code pades-t}): name and description by level. */
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
}
