package io.pkibench.plan;

import java.util.List;

/** A plan that cannot run; {@link #problems()} holds every reason, each naming the flag to fix. */
public final class PlanException extends IllegalArgumentException {
  private final List<String> problems;

  public PlanException(List<String> problems) {
    super(String.join("\n", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
