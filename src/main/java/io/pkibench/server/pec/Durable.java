package io.pkibench.server.pec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Files that survive a crash: written to a temporary name, forced to the disk, renamed into place, and
 * the directory forced too (a rename is only durable once its directory is). Counts the fsyncs and the
 * time they took: the spool's cost the pec study reports.
 *
 * <p>A directory's fsync is a group commit: the writers that renamed into one directory while its last
 * fsync ran wait for the next, which one of them makes for all (each returns only once an fsync that
 * started after its rename has ended). Concurrent messages so share one directory fsync where each
 * paid its own; an empty file (a mark) is not forced at all, its entry in the directory being all it holds.
 */
final class Durable {
  private final AtomicLong fsyncs = new AtomicLong();
  private final AtomicLong fsyncNanos = new AtomicLong();
  private final ConcurrentHashMap<Path, GroupCommit> directories = new ConcurrentHashMap<>();

  /** Writes {@code parts} to {@code target} through {@code tmp}; durable when this returns. */
  void write(Path tmp, Path target, byte[]... parts) throws IOException {
    Files.createDirectories(tmp.getParent());
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      long written = 0;
      for (byte[] part : parts) {
        ByteBuffer b = ByteBuffer.wrap(part);
        while (b.hasRemaining()) written += ch.write(b);
      }
      if (written > 0) force(ch);
    } catch (IOException e) {
      // a half-written file on a full disk would hold the very space a retry needs
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(target.getParent());
  }

  /**
   * Writes {@code parts} to {@code file} and forces its bytes, without a rename: for a file inside a
   * directory that is itself renamed into place once complete (its entry is made durable by forcing
   * that directory once, for all the files in it).
   */
  void writeInPlace(Path file, byte[]... parts) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (byte[] part : parts) {
        ByteBuffer b = ByteBuffer.wrap(part);
        while (b.hasRemaining()) ch.write(b);
      }
      force(ch);
    }
  }

  /** Returns once an fsync of {@code dir} that began after this call has ended: the caller's renames into it are durable. */
  void forceDirectory(Path dir) throws IOException {
    directories.computeIfAbsent(dir.toAbsolutePath().normalize(), d -> new GroupCommit(() -> {
      try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
        force(ch);
      }
    })).await();
  }

  /** Forces a file's bytes and its length (an fdatasync), counted with the others: enough for an append-only journal. */
  void forceData(FileChannel ch) throws IOException {
    long start = System.nanoTime();
    ch.force(false);
    fsyncNanos.addAndGet(System.nanoTime() - start);
    fsyncs.incrementAndGet();
  }

  private void force(FileChannel ch) throws IOException {
    long start = System.nanoTime();
    ch.force(true);
    fsyncNanos.addAndGet(System.nanoTime() - start);
    fsyncs.incrementAndGet();
  }

  long fsyncs() {
    return fsyncs.get();
  }

  long fsyncNanos() {
    return fsyncNanos.get();
  }
}
