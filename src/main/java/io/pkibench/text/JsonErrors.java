package io.pkibench.text;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * Jackson's parse errors in words for a user: what is wrong and where (line, column), without its
 * "[Source: REDACTED (StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION disabled)" or reference chains,
 * which tell a user nothing about the file they gave.
 */
public final class JsonErrors {
  private JsonErrors() {}

  public static String inWords(JsonProcessingException e) {
    String what = e.getOriginalMessage() == null ? "not valid JSON" : e.getOriginalMessage();
    // A nested location ("start marker at [Source: …; line: 1, column: 43]") keeps its line and
    // column only.
    what =
        what.replaceAll(
                "\\[Source: [^;\\]]*;\\s*line: (\\d+), column: (\\d+)\\]", "line $1, column $2")
            .replaceAll("\\s*\\n\\s*", " ")
            .strip();
    JsonLocation at = e.getLocation();
    return at == null || at.getLineNr() < 1
        ? what
        : what + " at line " + at.getLineNr() + ", column " + at.getColumnNr();
  }
}
