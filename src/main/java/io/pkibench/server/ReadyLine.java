package io.pkibench.server;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * The line {@code pkibench serve …} prints once it listens, for programs that start it (a study, a
 * script): {@code pkibench.ready/1 {"service":"signer","url":"https://127.0.0.1:8443","pid":4242}}.
 * One line, a fixed prefix, then JSON; the human sentence is printed apart from it. A service whose
 * clients need a token ({@code serve openbao}) adds {@code tokenFile}: the owner-only file that
 * holds it, never the token.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReadyLine(String service, String url, long pid, String tokenFile) {
  public static final String PREFIX = "pkibench.ready/1 ";
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  @JsonCreator
  public ReadyLine {}

  public ReadyLine(String service, String url, long pid) {
    this(service, url, pid, null);
  }

  public String format() {
    try {
      return PREFIX + JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The ready line in {@code line}, if it is one; anything else (log output) is not. */
  public static Optional<ReadyLine> parse(String line) {
    if (!line.startsWith(PREFIX)) return Optional.empty();
    try {
      ReadyLine r = JSON.readValue(line.substring(PREFIX.length()), ReadyLine.class);
      return r.url() == null || r.pid() <= 0 ? Optional.empty() : Optional.of(r);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }
}
