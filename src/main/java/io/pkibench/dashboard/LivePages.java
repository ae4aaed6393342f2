package io.pkibench.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.metrics.SeriesFigures;
import io.pkibench.metrics.SeriesKey;
import io.pkibench.results.RunResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the page's process serves: the history of the readings it was sent, the study's step and
 * table as they stand, and at the end the frozen page (the report, as {@code --html} saves it).
 */
final class LivePages implements DashboardServer.Pages {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LiveHistory history;
  private volatile byte[] frozen;
  private volatile StudyView study;

  /**
   * The latest reading's rendering, made when a client first asks for it and then served as is
   * until the next reading: however many clients poll, the charts are drawn at most once a second,
   * and not at all while nobody looks.
   */
  private record Rendered(long sequence, boolean ended, String body, byte[] json) {}

  private volatile Rendered rendered;

  LivePages(String runId, double plannedSeconds) {
    this.history = new LiveHistory(runId, plannedSeconds);
  }

  /**
   * Every series' latest totals, in the order they first came: a reading carries only the series
   * that moved since the one before, the others stay as they were, no longer live.
   */
  private final Map<SeriesKey, SeriesFigures> known = new LinkedHashMap<>();

  /** One reading, from the measured process; the page's reading thread only. */
  void add(MetricsSnapshot reading) {
    known.replaceAll((key, figures) -> figures.quiet());
    for (SeriesFigures f : reading.series()) known.put(f.key(), f);
    history.add(
        new MetricsSnapshot(
            reading.runId(),
            reading.atMillis(),
            List.copyOf(known.values()),
            reading.clientCpuSeconds(),
            reading.serviceCpuSeconds()));
  }

  /**
   * A study's step, and its result as saved so far when that changed (null: as before): the page
   * draws the study's table from then on.
   */
  void study(String step, RunResult soFarOrNull) {
    RunResult soFar = soFarOrNull != null ? soFarOrNull : study == null ? null : study.soFar();
    study =
        new StudyView() {
          @Override
          public String step() {
            return step;
          }

          @Override
          public RunResult soFar() {
            return soFar;
          }
        };
  }

  /** From now on the page is {@code finalPage}. */
  void freeze(String finalPage) {
    frozen = finalPage.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] page() {
    byte[] done = frozen;
    if (done != null) return done;
    LiveHistory.View view = history.view();
    return LivePage.page(view, rendered(view).body()).getBytes(StandardCharsets.UTF_8);
  }

  /** The live part and the latest second's figures, for the page's script and for tests. */
  @Override
  public byte[] live() {
    return rendered(history.view()).json();
  }

  /** The rendering of {@code view}: the cached one when it is of the same reading. */
  private Rendered rendered(LiveHistory.View view) {
    boolean ended = frozen != null;
    Rendered r = rendered;
    if (r != null && r.sequence() == view.sequence() && r.ended() == ended) return r;
    LivePage.Study drawn = LivePage.Study.of(study);
    String body = LivePage.body(view, drawn);
    r = new Rendered(view.sequence(), ended, body, json(view, drawn, body, ended));
    rendered = r; // two clients at once may both draw it: the same bytes, the last one kept
    return r;
  }

  private static byte[] json(
      LiveHistory.View view, LivePage.Study study, String body, boolean ended) {
    ObjectNode o = JSON.createObjectNode();
    o.put("sequence", view.sequence());
    o.put("ended", ended);
    o.put("status", LivePage.status(view, study));
    List<LiveHistory.Point> points = view.points();
    if (!points.isEmpty()) {
      LiveHistory.Point last = points.get(points.size() - 1);
      o.put("opsPerSecond", last.opsPerSecond());
      o.put("errorsPerSecond", last.errorsPerSecond());
      o.put("p50Millis", last.p50Millis());
      o.put("p99Millis", last.p99Millis());
      // left out where not read (a run's service is this process), rather than written NaN
      if (Double.isFinite(last.clientCpuCores())) o.put("clientCpuCores", last.clientCpuCores());
      if (Double.isFinite(last.serviceCpuCores())) o.put("serviceCpuCores", last.serviceCpuCores());
    }
    o.put("rows", view.rows().size());
    o.put("html", body);
    try {
      return JSON.writeValueAsBytes(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
