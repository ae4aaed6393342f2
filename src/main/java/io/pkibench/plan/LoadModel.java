package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * How load is offered: by a number of workers (closed loop) or by a fixed arrival rate (open loop).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "model")
@JsonSubTypes({
  @JsonSubTypes.Type(value = LoadModel.Closed.class, name = "closed"),
  @JsonSubTypes.Type(value = LoadModel.Open.class, name = "open"),
  @JsonSubTypes.Type(value = LoadModel.Staged.class, name = "staged")
})
public sealed interface LoadModel {

  /** Each level in the order it runs. */
  default List<LevelLoad> levels() {
    return switch (this) {
      case Closed closed ->
          closed.concurrency().stream().<LevelLoad>map(LevelLoad.Closed::new).toList();
      case Open open ->
          open.ratesPerSecond().stream()
              .<LevelLoad>map(r -> new LevelLoad.Open(open.workers(), r))
              .toList();
      case Staged staged -> List.of(staged.level());
    };
  }

  /**
   * {@code levels} = the number of workers of each level, each starting its next operation when the
   * last ends.
   */
  record Closed(List<Integer> concurrency) implements LoadModel {
    public Closed {
      concurrency = List.copyOf(concurrency);
    }
  }

  /**
   * Each level offers {@code ratesPerSecond} operations per second on a fixed timetable, served by
   * up to {@code workers} operations in flight; latency counts from each scheduled start.
   */
  record Open(List<Double> ratesPerSecond, int workers) implements LoadModel {
    public Open {
      ratesPerSecond = List.copyOf(ratesPerSecond);
    }
  }

  /**
   * One level whose target moves through {@code stages} instead of levels held in turn; {@code
   * workers}: with rate stages, the workers serving the timetable (as with {@code --rate}); with
   * worker stages, the most any stage asks.
   */
  record Staged(Stages stages, int workers) implements LoadModel {
    /**
     * The level as the engine sizes it: the pool of workers, and for rate stages their mean rate
     * (the level's target).
     */
    public LevelLoad level() {
      return stages.kind() == Stages.Kind.RATE
          ? new LevelLoad.Open(workers, stages.meanRate())
          : new LevelLoad.Closed(workers);
    }
  }
}
