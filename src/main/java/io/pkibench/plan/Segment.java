package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;

/**
 * Agent {@code index} of {@code count} ({@code --segment 2/4}, counted from 1): the share of each
 * level it runs, so that the shares of agents 1..count add up to the plan. Closed loop: the level's
 * workers split as evenly as they go, the remainder one each to the lowest indexes (10 over 4: 3,
 * 3, 2, 2). Open loop: the level's one timetable dealt out in turn, agent i taking arrivals i, i+n,
 * i+2n… (k6's execution segments), so the merged schedule is the plan's timetable; its workers
 * split as in closed loop. On stages ({@code --stages}) every agent follows the plan's stages: of a
 * ramping timetable it takes arrivals i, i+n, i+2n… as on a fixed one; of worker targets, the
 * plan's workers i, i+n, i+2n…, each running while the target counts it, so that the agents'
 * workers together are the target at every moment.
 */
public record Segment(int index, int count) {
  /** The whole plan: one agent doing everything. */
  public static final Segment WHOLE = new Segment(1, 1);

  public Segment {
    if (count < 1 || index < 1 || index > count) {
      throw new IllegalArgumentException(
          "'" + index + "/" + count + "': the segment is I/N with 1 <= I <= N, e.g. 2/4");
    }
  }

  /** Parses {@code I/N}, e.g. {@code 2/4}. */
  @JsonCreator
  public static Segment parse(String text) {
    String t = text.trim();
    int slash = t.indexOf('/');
    if (slash <= 0)
      throw new IllegalArgumentException(
          "'" + text + "' is not I/N; write the agent's number and the number of agents, e.g. 2/4");
    try {
      return new Segment(
          Integer.parseInt(t.substring(0, slash).trim()),
          Integer.parseInt(t.substring(slash + 1).trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not I/N with whole numbers, e.g. 2/4");
    }
  }

  public boolean whole() {
    return count == 1;
  }

  /** This agent's share of {@code workers}: the shares of all agents add up to it. */
  public int workers(int levelWorkers) {
    return levelWorkers / count + (index - 1 < levelWorkers % count ? 1 : 0);
  }

  /** This agent's part of a level of the plan. */
  public LevelLoad share(LevelLoad level) {
    if (whole()) return level;
    return switch (level) {
      case LevelLoad.Closed c -> new LevelLoad.Closed(workers(c.workers()));
      // Every count-th arrival of the plan's timetable, from the (index-1)-th: the rate divided,
      // the first arrival offset.
      case LevelLoad.Open o ->
          new LevelLoad.Open(
              workers(o.workers()),
              o.ratePerSecond() / count,
              o.offsetNanos() + Math.round((index - 1) * 1e9 / o.ratePerSecond()));
    };
  }

  /**
   * Every level that cannot be split {@code count} ways, naming it: an agent would run no worker at
   * all. Empty for the whole plan.
   */
  public List<String> problems(LoadModel load) {
    List<String> problems = new ArrayList<>();
    if (whole()) return problems;
    switch (load) {
      case LoadModel.Closed closed -> {
        for (int n : closed.concurrency()) {
          if (n < count) {
            problems.add(
                "--segment "
                    + this
                    + ": the level of "
                    + n
                    + " workers cannot be split over "
                    + count
                    + " agents (each needs at least one); give levels of at least "
                    + count
                    + " workers, or fewer agents");
          }
        }
      }
      case LoadModel.Open open -> {
        if (open.workers() < count) {
          problems.add(
              "--segment "
                  + this
                  + ": "
                  + open.workers()
                  + " workers serving the timetable cannot be split over "
                  + count
                  + " agents; give --concurrency "
                  + count
                  + " or more");
        }
      }
      // Each agent follows the whole plan's stages, taking its interleaved slots (rate) or its
      // workers (worker targets).
      case LoadModel.Staged staged -> {
        if (staged.workers() < count) {
          problems.add(
              "--segment "
                  + this
                  + ": the stages' "
                  + staged.workers()
                  + " workers cannot be split over "
                  + count
                  + " agents (each needs at least one); give --concurrency "
                  + count
                  + " or more, or fewer agents");
        }
      }
    }
    return problems;
  }

  @JsonValue
  @Override
  public String toString() {
    return index + "/" + count;
  }
}
