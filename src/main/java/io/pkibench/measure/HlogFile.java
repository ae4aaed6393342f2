package io.pkibench.measure;

import io.pkibench.files.OutputFiles;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * An HdrHistogram interval log ({@code .hlog}); flushed after every interval so a killed run keeps
 * them. Created anew, owner-only; a link at its path is refused ({@link OutputFiles#createNew}).
 */
public final class HlogFile implements IntervalLog {
  private final Path file;
  private final FailureKept out;
  private final PrintStream stream;
  private final HistogramLogWriter writer;

  public HlogFile(Path file, Instant start, String comment) {
    this(file, open(file), start, comment);
  }

  /** {@code file} only names the log in messages; {@code sink} is where it goes. */
  HlogFile(Path file, java.io.OutputStream sink, Instant start, String comment) {
    this.file = file;
    this.out = new FailureKept(sink);
    this.stream = new PrintStream(out, false, java.nio.charset.StandardCharsets.US_ASCII);
    this.writer = new HistogramLogWriter(stream);
    writer.outputComment(comment);
    writer.outputLogFormatVersion();
    writer.outputStartTime(start.toEpochMilli());
    writer.setBaseTime(start.toEpochMilli());
    writer.outputLegend();
    flush();
  }

  private static java.io.OutputStream open(Path file) {
    try {
      return OutputFiles.createNew(file);
    } catch (java.io.IOException e) {
      throw new UncheckedIOException(
          "cannot write interval log " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void write(String tag, Histogram interval) {
    interval.setTag(tag);
    writer.outputIntervalHistogram(interval);
    flush();
  }

  /**
   * A PrintStream only remembers that a write failed; the failure (a full disk, say) is named with
   * the file here.
   */
  private void flush() {
    stream.flush();
    if (stream.checkError()) {
      java.io.IOException cause =
          out.failure != null ? out.failure : new java.io.IOException("write failed");
      throw new UncheckedIOException(
          "cannot write interval log " + file + ": " + cause.getMessage(), cause);
    }
  }

  /** Keeps the first IOException of the stream it wraps, which PrintStream would swallow. */
  private static final class FailureKept extends java.io.FilterOutputStream {
    volatile java.io.IOException failure;

    FailureKept(java.io.OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      try {
        out.write(b, off, len);
      } catch (java.io.IOException e) {
        if (failure == null) failure = e;
        throw e;
      }
    }

    @Override
    public void write(int b) throws java.io.IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void flush() throws java.io.IOException {
      try {
        out.flush();
      } catch (java.io.IOException e) {
        if (failure == null) failure = e;
        throw e;
      }
    }
  }

  @Override
  public synchronized void close() {
    stream.close();
  }
}
