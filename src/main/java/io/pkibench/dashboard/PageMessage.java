package io.pkibench.dashboard;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.metrics.SeriesFigures;
import io.pkibench.metrics.SeriesKey;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;

/**
 * One line from the measured process to its page's process, JSON on one line: a reading ({@code
 * snapshot}; with a study, its {@code step} and, when it changed, its result as saved so far), or
 * the end ({@code finalPage}, the report). Both ends are the same pkibench: nothing versioned.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record PageMessage(MetricsSnapshot snapshot, String step, RunResult soFar, String finalPage) {
  // the result's own mapper (its modules and settings), on one line
  private static final ObjectMapper MAPPER =
      RunResultJson.mapper()
          .copy()
          .disable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final ObjectWriter WRITER = MAPPER.writerFor(PageMessage.class);
  private static final ObjectReader READER = MAPPER.readerFor(PageMessage.class);

  static PageMessage reading(MetricsSnapshot snapshot, String step, RunResult soFar) {
    return new PageMessage(snapshot, step, soFar, null);
  }

  static PageMessage end(String finalPage) {
    return new PageMessage(null, null, null, finalPage);
  }

  String line() throws JsonProcessingException {
    return WRITER.writeValueAsString(this);
  }

  /**
   * A reading's line, written by hand into {@code out} (cleared first), as {@link #line} writes it:
   * this runs once a second in the measured process, where Jackson's serializer ran in the
   * interpreter and kept the JIT compiling (as {@code --metrics}' protobuf builders once did). The
   * result (a study's, when it changed: once a step) is Jackson's.
   */
  static void readingLine(
      StringBuilder out, MetricsSnapshot snapshot, String step, RunResult soFarOrNull)
      throws JsonProcessingException {
    out.setLength(0);
    out.append("{\"snapshot\":{\"runId\":");
    string(out, snapshot.runId());
    out.append(",\"atMillis\":").append(snapshot.atMillis()).append(",\"series\":[");
    for (int i = 0; i < snapshot.series().size(); i++) {
      SeriesFigures f = snapshot.series().get(i);
      if (i > 0) out.append(',');
      SeriesKey k = f.key();
      out.append("{\"key\":{\"workload\":");
      string(out, k.workload());
      out.append(",\"level\":");
      string(out, k.level());
      out.append(",\"phase\":");
      string(out, k.phase());
      out.append(",\"stage\":");
      string(out, k.stage());
      out.append(",\"member\":");
      string(out, k.member());
      out.append("},\"succeeded\":").append(f.succeeded());
      out.append(",\"failed\":").append(f.failed());
      out.append(",\"cumulativeBuckets\":[");
      long[] buckets = f.cumulativeBuckets();
      for (int b = 0; b < buckets.length; b++) {
        if (b > 0) out.append(',');
        out.append(buckets[b]);
      }
      out.append("],\"latencySumSeconds\":");
      number(out, f.latencySumSeconds());
      out.append(",\"maxLatencySeconds\":");
      number(out, f.maxLatencySeconds());
      out.append(",\"targetPerSecond\":");
      number(out, f.targetPerSecond());
      out.append(",\"achievedPerSecond\":");
      number(out, f.achievedPerSecond());
      out.append(",\"activeWorkers\":").append(f.activeWorkers());
      out.append(",\"live\":").append(f.live());
      out.append(",\"counters\":").append(f.counters());
      out.append(",\"gauges\":").append(f.gauges()).append('}');
    }
    out.append("],\"clientCpuSeconds\":");
    number(out, snapshot.clientCpuSeconds());
    out.append(",\"serviceCpuSeconds\":");
    number(out, snapshot.serviceCpuSeconds());
    out.append('}');
    if (step != null) {
      out.append(",\"step\":");
      string(out, step);
    }
    if (soFarOrNull != null)
      out.append(",\"soFar\":").append(MAPPER.writeValueAsString(soFarOrNull));
    out.append('}');
  }

  /** A double as Jackson writes one: a JSON number, or NaN and the infinities as strings. */
  private static void number(StringBuilder out, double d) {
    if (Double.isFinite(d)) out.append(d);
    else out.append('"').append(d).append('"');
  }

  /** A JSON string (null as null): quote, backslash and control characters escaped. */
  private static void string(StringBuilder out, String s) {
    if (s == null) {
      out.append("null");
      return;
    }
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    out.append('"');
  }

  static PageMessage parse(String line) throws JsonProcessingException {
    return READER.readValue(line);
  }
}
