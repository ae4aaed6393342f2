package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One level of a load model, as the engine runs it: a number of workers each starting its next
 * operation when the last ends (closed loop), or workers serving a fixed timetable of {@code
 * ratePerSecond} starts (open loop). One sealed type instead of a rate of 0 or null meaning
 * "closed".
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "model")
@JsonSubTypes({
  @JsonSubTypes.Type(value = LevelLoad.Closed.class, name = "closed"),
  @JsonSubTypes.Type(value = LevelLoad.Open.class, name = "open")
})
public sealed interface LevelLoad {
  int workers();

  record Closed(int workers) implements LevelLoad {}

  /**
   * {@code offsetNanos}: when the first arrival is due after the iteration's start (0 but for an
   * agent's interleaved share of a timetable, see {@link Segment}).
   */
  record Open(int workers, double ratePerSecond, long offsetNanos) implements LevelLoad {
    public Open(int workers, double ratePerSecond) {
      this(workers, ratePerSecond, 0);
    }
  }
}
