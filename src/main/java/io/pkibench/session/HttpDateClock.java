package io.pkibench.session;

import io.pkibench.results.AgentRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import javax.net.ssl.SSLContext;

/**
 * This host's clock against a target's HTTP {@code Date} header (RFC 9110: whole seconds), read to
 * well under a second as htpdate does: requests a few milliseconds apart until the header's second
 * changes; the target's clock crossed that second between the last request that saw the old second
 * (sent at t0) and the first that saw the new one (answered at t1), so the offset is the new second
 * minus the middle of t0..t1, give or take half of it. Every agent of a split plan asks the same
 * target, so their offsets against it tell how far apart their shared boundaries really are.
 */
public final class HttpDateClock {
  /**
   * Beyond this, iteration k of an agent no longer covers nearly the same interval as the others'
   * (2% of a 5 s iteration).
   */
  public static final long BOUND_MILLIS = 100;

  /** Requests this far apart: the offset's uncertainty is about this plus one round trip. */
  static final long PROBE_EVERY_MILLIS = 10;

  /**
   * The header's second must change within this after the first answer (which may take long: a
   * connection, a cold JVM on a loaded machine): one second, with room for slow answers.
   */
  static final long PROBE_FOR_MILLIS = 3_000;

  private HttpDateClock() {}

  /**
   * Measures against {@code target} (http or https; {@code tls} null for the JDK's default trust).
   * Never throws: what failed goes in the note.
   */
  public static AgentRecord.Clock measure(URI target, SSLContext tls, InstantSource clock) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1);
    if (tls != null) builder.sslContext(tls);
    try (HttpClient http = builder.build()) {
      HttpRequest request =
          HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(5)).GET().build();
      long deadline = Long.MAX_VALUE;
      long lastT0 = -1;
      long lastSecond = Long.MIN_VALUE;
      while (clock.millis() < deadline) {
        long t0 = clock.millis();
        HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
        long t1 = clock.millis();
        String date = response.headers().firstValue("Date").orElse(null);
        if (date == null)
          return AgentRecord.Clock.notMeasured(target + " sends no Date header", BOUND_MILLIS);
        long second =
            ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond();
        if (lastSecond != Long.MIN_VALUE && second != lastSecond) {
          long middle = (lastT0 + t1) / 2;
          long offset = second * 1000 - middle;
          long uncertainty = (t1 - lastT0 + 1) / 2;
          return new AgentRecord.Clock(
              target.toString(),
              offset,
              uncertainty,
              BOUND_MILLIS,
              Math.abs(offset) > BOUND_MILLIS,
              null);
        }
        if (lastSecond == Long.MIN_VALUE) deadline = t1 + PROBE_FOR_MILLIS;
        lastSecond = second;
        lastT0 = t0;
        Thread.sleep(PROBE_EVERY_MILLIS);
      }
      return AgentRecord.Clock.notMeasured(
          target + ": its Date did not change within " + PROBE_FOR_MILLIS + " ms", BOUND_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return AgentRecord.Clock.notMeasured("interrupted while asking " + target, BOUND_MILLIS);
    } catch (DateTimeParseException e) {
      return AgentRecord.Clock.notMeasured(
          target + " sends a Date header that is not an HTTP date (" + e.getParsedString() + ")",
          BOUND_MILLIS);
    } catch (Exception e) {
      return AgentRecord.Clock.notMeasured("cannot ask " + target + " (" + e + ")", BOUND_MILLIS);
    }
  }
}
