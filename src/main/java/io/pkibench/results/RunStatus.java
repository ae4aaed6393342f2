package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/** Where a run stands, as the result file spells it: {@code running} until it ends. */
public enum RunStatus {
  RUNNING,
  COMPLETE,
  FAILED,
  INTERRUPTED;

  /** The word in the file and in every report. */
  @JsonValue
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static RunStatus of(String word) {
    return Arrays.stream(values())
        .filter(s -> s.toString().equals(word))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "status '" + word + "' is none of running, complete, failed, interrupted"));
  }
}
