package io.pkibench.server.pec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a provider counts while it runs, and {@code SPOOL/stats.json}, where a study reads it: the
 * file carries {@link #FORMAT}, and {@link Snapshot#read} refuses any other.
 */
public final class ProviderStats {
  /** The stats file's format; a reader refuses a file of any other. */
  public static final String FORMAT = "pkibench.pec-stats/1";

  private static final ObjectMapper JSON = new ObjectMapper();

  final AtomicLong accepted = new AtomicLong();
  final AtomicLong duplicates = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  final AtomicLong processed = new AtomicLong();
  final AtomicLong relayed = new AtomicLong();
  final AtomicLong delivered = new AtomicLong();
  private final AtomicBoolean writeProblemSaid = new AtomicBoolean();

  /** A stats file of a format this version does not read. */
  public static final class UnknownFormat extends IOException {
    UnknownFormat(String message) {
      super(message);
    }
  }

  /**
   * What the provider did so far: messages taken, duplicates dropped, jobs done, items carried, and
   * the spool's fsyncs.
   */
  public record Snapshot(
      String format,
      long accepted,
      long duplicates,
      long refused,
      long processed,
      long delivered,
      long relayed,
      long fsyncs,
      long fsyncNanos,
      int waitingJobs,
      int waitingItems) {
    /**
     * The snapshot in {@code file}; an IOException naming the file when it is not one, an {@link
     * UnknownFormat} when it is of another format than {@link #FORMAT}.
     */
    public static Snapshot read(Path file) throws IOException {
      JsonNode node = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
      String format = node == null ? null : node.path("format").asText(null);
      if (!FORMAT.equals(format)) {
        throw new UnknownFormat(
            file
                + ": provider stats of format "
                + (format == null ? "(none)" : format)
                + ", this version reads "
                + FORMAT
                + "; run the provider ('serve pec') of this pkibench");
      }
      return JSON.treeToValue(node, Snapshot.class);
    }
  }

  Snapshot snapshot(Durable durable, PecSpool spool) {
    return new Snapshot(
        FORMAT,
        accepted.get(),
        duplicates.get(),
        refused.get(),
        processed.get(),
        delivered.get(),
        relayed.get(),
        durable.fsyncs(),
        durable.fsyncNanos(),
        spool.waitingJobs(),
        spool.pendingItems().size());
  }

  /**
   * Writes {@code snapshot} to {@code SPOOL/stats.json}, replaced whole by a rename so that a
   * reader never sees half of it; a failure is said once.
   */
  void write(Snapshot snapshot, Path spool, ProviderLog log) {
    try {
      Path tmp = spool.resolve("tmp").resolve("stats.json");
      Files.writeString(tmp, JSON.writeValueAsString(snapshot) + "\n");
      Files.move(
          tmp,
          spool.resolve("stats.json"),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      if (writeProblemSaid.compareAndSet(false, true))
        log.say("cannot write the spool's stats: " + e.getMessage());
    }
  }
}
