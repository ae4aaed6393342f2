package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.plan.Segment;
import java.time.Instant;

/**
 * One agent of a plan split over several ({@code --segment}): which share it ran, on which host,
 * when the shared timetable began ({@code startAt}, absent without one), how far its clock was from
 * the reference's, and how many of its iterations began later than their shared boundary. Absent
 * from a plain run's file.
 */
public record AgentRecord(
    Segment segment,
    String host,
    @JsonInclude(JsonInclude.Include.NON_NULL) Instant startAt,
    Clock clock,
    @JsonInclude(JsonInclude.Include.NON_NULL) Integer lateStarts,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long latestStartMillis) {

  /**
   * This host's clock against {@code reference} (the target's HTTP {@code Date}): {@code
   * offsetMillis} = reference minus ours, known to ± {@code uncertaintyMillis}; {@code beyondBound}
   * when it is more than {@code boundMillis} off, so that iteration k of this agent does not cover
   * the same interval as the others'. {@code offsetMillis} is null with the reason in {@code note}
   * when it could not be measured.
   */
  public record Clock(
      String reference,
      Long offsetMillis,
      Long uncertaintyMillis,
      long boundMillis,
      boolean beyondBound,
      @JsonInclude(JsonInclude.Include.NON_NULL) String note) {

    public static Clock notMeasured(String why, long boundMillis) {
      return new Clock(null, null, null, boundMillis, false, why);
    }
  }

  /**
   * With the timetable's start as it was given (local agents learn it once all are ready) and the
   * starts later than their boundary.
   */
  public AgentRecord withTimetable(Instant started, int lateCount, long latestMillis) {
    return new AgentRecord(segment, host, started, clock, lateCount, latestMillis);
  }
}
