package io.pkibench.measure;

import java.io.FileNotFoundException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/** An HdrHistogram interval log ({@code .hlog}); flushed after every interval so a killed run keeps them. */
public final class HlogFile implements IntervalLog {
  private final PrintStream stream;
  private final HistogramLogWriter writer;

  public HlogFile(Path file, Instant start, String comment) {
    try {
      this.stream = new PrintStream(file.toFile(), java.nio.charset.StandardCharsets.US_ASCII);
    } catch (java.io.IOException e) {
      throw new UncheckedIOException("cannot write interval log " + file, e);
    }
    this.writer = new HistogramLogWriter(stream);
    writer.outputComment(comment);
    writer.outputLogFormatVersion();
    writer.outputStartTime(start.toEpochMilli());
    writer.setBaseTime(start.toEpochMilli());
    writer.outputLegend();
    stream.flush();
  }

  @Override
  public synchronized void write(String tag, Histogram interval) {
    interval.setTag(tag);
    writer.outputIntervalHistogram(interval);
    stream.flush();
  }

  @Override
  public synchronized void close() {
    stream.close();
  }
}
