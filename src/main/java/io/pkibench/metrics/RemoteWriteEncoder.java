package io.pkibench.metrics;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Prometheus remote-write 1.0's {@code WriteRequest} (prometheus/prompb/remote.proto and
 * types.proto) written straight into one buffer reused from push to push, one sample per series,
 * each series' labels encoded once and copied after. protobuf-java's builders made the same bytes
 * through a message object per label, sample and series, and their code, run only once a push, kept
 * the JIT compiling it through the first minutes of a run: the run with {@code --metrics} spent
 * some 4% more CPU per operation than the same run without it, where the pushes themselves took
 * 1.2%.
 *
 * <p>The bytes are protobuf-java's own for the same message (fields in number order, a field at its
 * proto3 default left out, a sample present even when empty): {@code RemoteWriteEncoderTest} holds
 * the two equal.
 */
final class RemoteWriteEncoder {
  // Field tags: (field number << 3) | wire type (0 varint, 1 fixed 64 bits, 2 length-delimited).
  private static final int WRITE_REQUEST_TIMESERIES = 1 << 3 | 2;
  private static final int TIMESERIES_LABELS = 1 << 3 | 2;
  private static final int TIMESERIES_SAMPLES = 2 << 3 | 2;
  private static final int LABEL_NAME = 1 << 3 | 2;
  private static final int LABEL_VALUE = 2 << 3 | 2;
  private static final int SAMPLE_VALUE = 1 << 3 | 1;
  private static final int SAMPLE_TIMESTAMP = 2 << 3;

  /**
   * A metric name and its label pairs → their {@code labels} fields, encoded and sorted by name as
   * receivers require.
   */
  private final Map<List<String>, byte[]> labelsOf = new HashMap<>();

  private byte[] buffer = new byte[16 * 1024];
  private int size;

  /** Starts the next request in the same buffer. */
  void clear() {
    size = 0;
  }

  /** The request so far: {@link #size()} bytes of it. */
  byte[] buffer() {
    return buffer;
  }

  int size() {
    return size;
  }

  /**
   * Adds one series named {@code name}, with {@code labels} (name, value, name, value…), holding
   * one sample.
   */
  void series(String name, List<String> labels, double value, long atMillis) {
    byte[] encodedLabels = labels(name, labels);
    long valueBits =
        Double.doubleToRawLongBits(
            value); // raw: Prometheus's staleness marker is one NaN among many
    int sampleSize = (valueBits != 0 ? 1 + 8 : 0) + (atMillis != 0 ? 1 + varintSize(atMillis) : 0);
    int seriesSize = encodedLabels.length + 1 + varintSize(sampleSize) + sampleSize;
    ensure(1 + varintSize(seriesSize) + seriesSize);
    buffer[size++] = WRITE_REQUEST_TIMESERIES;
    varint(seriesSize);
    System.arraycopy(encodedLabels, 0, buffer, size, encodedLabels.length);
    size += encodedLabels.length;
    buffer[size++] = TIMESERIES_SAMPLES;
    varint(sampleSize);
    if (valueBits != 0) {
      buffer[size++] = SAMPLE_VALUE;
      for (int i = 0; i < 8; i++)
        buffer[size++] = (byte) (valueBits >>> (8 * i)); // fixed64 is little-endian
    }
    if (atMillis != 0) {
      buffer[size++] = SAMPLE_TIMESTAMP;
      varint(atMillis);
    }
  }

  private byte[] labels(String name, List<String> labels) {
    List<String> key = new ArrayList<>(labels.size() + 1);
    key.add(name);
    key.addAll(labels);
    return labelsOf.computeIfAbsent(key, k -> encodeLabels(name, labels));
  }

  private static byte[] encodeLabels(String name, List<String> labels) {
    List<String[]> pairs = new ArrayList<>();
    pairs.add(new String[] {"__name__", name});
    for (int i = 0; i < labels.size(); i += 2)
      pairs.add(new String[] {labels.get(i), labels.get(i + 1)});
    pairs.sort(
        (a, b) ->
            a[0].compareTo(
                b[0])); // names are ASCII: UTF-16 order is the byte order receivers check
    RemoteWriteEncoder out = new RemoteWriteEncoder();
    for (String[] pair : pairs) {
      byte[] labelName = pair[0].getBytes(StandardCharsets.UTF_8);
      byte[] labelValue = pair[1].getBytes(StandardCharsets.UTF_8);
      int labelSize = stringFieldSize(labelName) + stringFieldSize(labelValue);
      out.ensure(1 + varintSize(labelSize) + labelSize);
      out.buffer[out.size++] = TIMESERIES_LABELS;
      out.varint(labelSize);
      out.stringField(LABEL_NAME, labelName);
      out.stringField(LABEL_VALUE, labelValue);
    }
    return Arrays.copyOf(out.buffer, out.size);
  }

  /** A string field's size, nothing for an empty one (proto3 leaves a default out). */
  private static int stringFieldSize(byte[] utf8) {
    return utf8.length == 0 ? 0 : 1 + varintSize(utf8.length) + utf8.length;
  }

  private void stringField(int tag, byte[] utf8) {
    if (utf8.length == 0) return;
    buffer[size++] = (byte) tag;
    varint(utf8.length);
    System.arraycopy(utf8, 0, buffer, size, utf8.length);
    size += utf8.length;
  }

  private void varint(long value) {
    while ((value & ~0x7FL) != 0) {
      buffer[size++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    buffer[size++] = (byte) value;
  }

  private static int varintSize(long value) {
    int n = 1;
    while ((value & ~0x7FL) != 0) {
      n++;
      value >>>= 7;
    }
    return n;
  }

  private void ensure(int more) {
    if (size + more > buffer.length)
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
  }
}
