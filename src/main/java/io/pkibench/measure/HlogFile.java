package io.pkibench.measure;

import io.pkibench.files.OutputFiles;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
  HlogFile(Path file, OutputStream sink, Instant start, String comment) {
    this.file = file;
    this.out = new FailureKept(sink);
    this.stream = new PrintStream(out, false, StandardCharsets.US_ASCII);
    this.writer = new HistogramLogWriter(stream);
    writer.outputComment(comment);
    writer.outputLogFormatVersion();
    writer.outputStartTime(start.toEpochMilli());
    writer.setBaseTime(start.toEpochMilli());
    writer.outputLegend();
    flush();
  }

  private static OutputStream open(Path file) {
    try {
      return OutputFiles.createNew(file);
    } catch (IOException e) {
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
      IOException cause = out.failure != null ? out.failure : new IOException("write failed");
      throw new UncheckedIOException(
          "cannot write interval log " + file + ": " + cause.getMessage(), cause);
    }
  }

  /** Keeps the first IOException of the stream it wraps, which PrintStream would swallow. */
  private static final class FailureKept extends FilterOutputStream {
    volatile IOException failure;

    FailureKept(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      try {
        out.write(b, off, len);
      } catch (IOException e) {
        if (failure == null) failure = e;
        throw e;
      }
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void flush() throws IOException {
      try {
        out.flush();
      } catch (IOException e) {
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
