package io.pkibench.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.metrics.remotewrite.Label;
import io.pkibench.metrics.remotewrite.Sample;
import io.pkibench.metrics.remotewrite.TimeSeries;
import io.pkibench.metrics.remotewrite.WriteRequest;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The hand-written remote-write encoding against protobuf-java's, generated from the same
 * remote_write.proto: byte for byte, so a receiver reads what protobuf-java's builders would have
 * sent.
 */
class RemoteWriteEncoderTest {

  /** The same series through protobuf-java's builders: its labels sorted by name, one sample. */
  private static TimeSeries reference(
      String name, List<String> labels, double value, long atMillis) {
    TimeSeries.Builder series = TimeSeries.newBuilder();
    series.addLabels(Label.newBuilder().setName("__name__").setValue(name));
    for (int i = 0; i < labels.size(); i += 2)
      series.addLabels(Label.newBuilder().setName(labels.get(i)).setValue(labels.get(i + 1)));
    List<Label> sorted =
        series.getLabelsList().stream().sorted(Comparator.comparing(Label::getName)).toList();
    return series
        .clearLabels()
        .addAllLabels(sorted)
        .addSamples(Sample.newBuilder().setValue(value).setTimestamp(atMillis))
        .build();
  }

  private static byte[] written(RemoteWriteEncoder encoder) {
    return Arrays.copyOf(encoder.buffer(), encoder.size());
  }

  /**
   * Every length a varint can take at its edges (timestamps 0, 127, 128, 2^35, Long.MAX_VALUE, a
   * negative one), values at proto3's default (+0.0, left out) and not (-0.0, NaN, the staleness
   * marker's own NaN, infinities), label values empty (left out), of 127 and 128 bytes, and
   * non-ASCII (counted in UTF-8 bytes, not chars); a buffer that has to grow: each request equal to
   * protobuf-java's bytes.
   */
  @Test
  void series_edgeLengthsAndValues_sameBytesAsProtobufJava() {
    long[] times = {0, 127, 128, 1L << 35, Long.MAX_VALUE, -1, 1_795_000_000_000L};
    double[] values = {
      0.0,
      -0.0,
      1,
      Double.NaN,
      RemoteWriteSink.STALE_NAN,
      Double.POSITIVE_INFINITY,
      1e-9,
      123456789.25
    };
    List<List<String>> labelSets =
        List.of(
            List.of(),
            List.of("run", "r-1", "workload", "sign", "level", "c8"),
            List.of("member", "assinatura-ação-€", "run", ""),
            List.of("z", "x".repeat(127), "a", "y".repeat(128), "m", "w".repeat(300)));
    RemoteWriteEncoder encoder = new RemoteWriteEncoder();
    WriteRequest.Builder expected = WriteRequest.newBuilder();
    for (int round = 0;
        round < 40;
        round++) { // the same series again: their cached labels reused, the buffer grown past 16 KB
      for (List<String> labels : labelSets) {
        for (long at : times) {
          for (double value : values) {
            encoder.series("pkibench_operations_total", labels, value, at);
            expected.addTimeseries(reference("pkibench_operations_total", labels, value, at));
          }
        }
      }
    }
    byte[] ours = written(encoder);
    assertTrue(ours.length > 16 * 1024, "grew past the first buffer: " + ours.length);
    assertArrayEquals(expected.build().toByteArray(), ours);
  }

  /**
   * A whole push, its bytes read back by protobuf-java's parser: what a receiver sees. The
   * staleness marker keeps its exact NaN; a cleared encoder starts afresh.
   */
  @Test
  void encode_snapshotWithAnEndedSeries_parsedBackWithStalenessMarkers() throws Exception {
    SeriesKey running = new SeriesKey("sign", "r400", "measure", "2", null);
    SeriesKey ended = new SeriesKey("sign", "r400", "warmup", "1", null);
    long[] buckets = new long[LatencyBuckets.count()];
    Arrays.fill(buckets, buckets.length / 2, buckets.length, 7);
    MetricsSnapshot snapshot =
        new MetricsSnapshot(
            "run-1",
            1_795_000_000_123L,
            List.of(
                new SeriesFigures(running, 7, 0, buckets, 0.5, 0.2, 400, 399.5, 8, true),
                new SeriesFigures(ended, 3, 1, buckets, 0.1, 0.1, 400, 0, 8, false)),
            12.5,
            Double.NaN);
    RemoteWriteEncoder encoder = new RemoteWriteEncoder();
    encoder.series("left_over_from_an_earlier_push", List.of(), 1, 1);
    RemoteWriteSink.encode(snapshot, Set.of(ended), encoder);

    WriteRequest request = WriteRequest.parseFrom(written(encoder));
    int perCounterSeries = 2 + buckets.length + 2;
    assertEquals(
        2 * perCounterSeries + 3 + 3 + 1,
        request.getTimeseriesCount(),
        "counters of both, gauges of both (one ended), client CPU");
    assertTrue(
        request.getTimeseriesList().stream()
            .noneMatch(t -> t.getLabels(0).getValue().startsWith("left_over")),
        "cleared first");
    for (TimeSeries t : request.getTimeseriesList()) {
      List<String> names = t.getLabelsList().stream().map(Label::getName).toList();
      assertEquals(names.stream().sorted().toList(), names, "labels sorted by name");
      assertEquals(1_795_000_000_123L, t.getSamples(0).getTimestamp());
    }
    TimeSeries endedWorkers =
        request.getTimeseriesList().stream()
            .filter(
                t ->
                    t.getLabelsList()
                            .contains(
                                Label.newBuilder()
                                    .setName("__name__")
                                    .setValue("pkibench_active_workers")
                                    .build())
                        && t.getLabelsList()
                            .contains(
                                Label.newBuilder().setName("phase").setValue("warmup").build()))
            .findFirst()
            .orElseThrow();
    assertEquals(
        0x7ff0000000000002L,
        Double.doubleToRawLongBits(endedWorkers.getSamples(0).getValue()),
        "Prometheus's own staleness NaN");
    TimeSeries inf =
        request.getTimeseriesList().stream()
            .filter(
                t ->
                    t.getLabelsList()
                            .contains(Label.newBuilder().setName("le").setValue("+Inf").build())
                        && t.getLabelsList()
                            .contains(
                                Label.newBuilder().setName("phase").setValue("measure").build()))
            .findFirst()
            .orElseThrow();
    assertEquals(7.0, inf.getSamples(0).getValue());
  }
}
