package io.pkibench.server.pec;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What puts the provider's files on the disk, and counts the fsyncs and the time they took: the
 * spool's cost the pec study reports. The journal forces its appends ({@link #forceData}); the
 * mailboxes are written unforced ({@link #writeUnforced}), vouched for by the journal's records of
 * them, and flushed in bulk ({@link #syncFileSystem}).
 *
 * <p>A directory's fsync is a group commit: the writers that renamed into one directory while its
 * last fsync ran wait for the next, which one of them makes for all (each returns only once an
 * fsync that started after its rename has ended).
 */
final class Durable {
  private final AtomicLong fsyncs = new AtomicLong();
  private final AtomicLong fsyncNanos = new AtomicLong();
  private final ConcurrentHashMap<Path, GroupCommit> directories = new ConcurrentHashMap<>();

  /**
   * A flush of a whole file system that takes longer is a disk in trouble: said, not waited on
   * forever.
   */
  private static final long SYNC_TIMEOUT_SECONDS = 300;

  /**
   * Writes {@code parts} to {@code target} through {@code tmp} and renames it into place, forcing
   * nothing: for a file whose durability another record vouches for (a Maildir delivery, recorded
   * in the spool's journal and rewritten from it after a power loss) until {@link #syncFileSystem}
   * has put it on the disk.
   */
  void writeUnforced(Path tmp, Path target, byte[]... parts) throws IOException {
    Files.createDirectories(tmp.getParent());
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      for (byte[] part : parts) {
        ByteBuffer b = ByteBuffer.wrap(part);
        while (b.hasRemaining()) ch.write(b);
      }
    } catch (IOException e) {
      // a half-written file on a full disk would hold the very space a retry needs
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Puts every file written so far on {@code dir}'s file system on the disk, names and bytes, in
   * one flush (counted as one fsync): syncfs(2) through coreutils' {@code sync -f}, Java 21 having
   * no syncfs of its own; where that is missing, a whole-system {@code sync}. What a batch of
   * unforced writes costs once, instead of two fsyncs each.
   */
  void syncFileSystem(Path dir) throws IOException {
    long start = System.nanoTime();
    if (!ran(List.of("sync", "-f", dir.toAbsolutePath().toString())) && !ran(List.of("sync"))) {
      throw new IOException(
          "cannot sync the file system of "
              + dir
              + ": neither `sync -f` nor `sync` ran (is coreutils' sync on the PATH?)");
    }
    counted(start);
  }

  private static boolean ran(List<String> command) throws IOException {
    Process p;
    try {
      p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
    } catch (IOException e) {
      return false; // not installed: the caller tries the next way
    }
    try {
      if (!p.waitFor(SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(
            String.join(" ", command) + " did not end within " + SYNC_TIMEOUT_SECONDS + " s");
      }
      return p.exitValue() == 0;
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + String.join(" ", command));
    }
  }

  /**
   * Returns once an fsync of {@code dir} that began after this call has ended: the caller's renames
   * into it are durable.
   */
  void forceDirectory(Path dir) throws IOException {
    directories
        .computeIfAbsent(
            dir.toAbsolutePath().normalize(),
            d ->
                new GroupCommit(
                    () -> {
                      try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
                        force(ch);
                      }
                    }))
        .await();
  }

  /**
   * Forces a file's bytes and its length (an fdatasync), counted with the others: enough for an
   * append-only journal.
   */
  void forceData(FileChannel ch) throws IOException {
    long start = System.nanoTime();
    ch.force(false);
    counted(start);
  }

  private void force(FileChannel ch) throws IOException {
    long start = System.nanoTime();
    ch.force(true);
    counted(start);
  }

  /**
   * One fsync (or file-system flush) made, begun at {@code startNanos}: counted with its time, the
   * spool's cost.
   */
  private void counted(long startNanos) {
    fsyncNanos.addAndGet(System.nanoTime() - startNanos);
    fsyncs.incrementAndGet();
  }

  long fsyncs() {
    return fsyncs.get();
  }

  long fsyncNanos() {
    return fsyncNanos.get();
  }
}
