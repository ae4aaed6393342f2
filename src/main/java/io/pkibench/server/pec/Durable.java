package io.pkibench.server.pec;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 *
 * <p>Every force is handed to a {@link Watch} as it begins and once it has ended: what a test
 * checks the order of writes and replies against.
 */
final class Durable {
  /** What is forced: a file's bytes, a file whole, a directory's names, or a file system. */
  enum Kind {
    FILE_DATA,
    FILE,
    DIRECTORY,
    FILE_SYSTEM
  }

  /**
   * One force of {@code path}; for {@link Kind#FILE_DATA}, {@code coveredBytes} is the file's size
   * when it began (every byte below it is on the disk once it has ended), -1 for the others.
   */
  record Force(Kind kind, Path path, long coveredBytes) {}

  /**
   * Sees each force begin and end (a test's oracle of the order of writes); called on the forcing
   * thread.
   */
  interface Watch {
    Watch NONE =
        new Watch() {
          @Override
          public void beginning(Force force) {}

          @Override
          public void ended(Force force) {}
        };

    void beginning(Force force) throws IOException;

    void ended(Force force);
  }

  private final AtomicLong fsyncs = new AtomicLong();
  private final AtomicLong fsyncNanos = new AtomicLong();
  private final AtomicLong filesForcedForFileSystem = new AtomicLong();
  private final ConcurrentHashMap<Path, GroupCommit> directories = new ConcurrentHashMap<>();
  private final Watch watch;

  /**
   * The files {@link #writeUnforced} wrote since a flush covered them, each with the number of its
   * last write (so that a flush forgets only the writes it covered).
   */
  private final ConcurrentHashMap<Path, Long> unforced = new ConcurrentHashMap<>();

  private final AtomicLong writes = new AtomicLong();

  Durable() {
    this(Watch.NONE);
  }

  Durable(Watch watch) {
    this.watch = watch;
  }

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
    unforced.put(target.toAbsolutePath().normalize(), writes.incrementAndGet());
  }

  /**
   * Puts every file written so far on {@code dir}'s file system on the disk, names and bytes, in
   * one flush (counted as one fsync): syncfs(2) through coreutils' {@code sync -f}, Java 21 having
   * no syncfs of its own; where that is missing, a whole-system {@code sync}. What a batch of
   * unforced writes costs once, instead of two fsyncs each.
   *
   * <p>Where syncfs does not reach the disk ({@link #syncfsReaches}: a plain FUSE mount, which the
   * kernel never forwards it to), each file {@link #writeUnforced} wrote under {@code dir} is
   * fsynced instead, then each directory it was renamed into: as many fsyncs as files, the only
   * flush such a file system takes.
   */
  void syncFileSystem(Path dir) throws IOException {
    Path root = dir.toAbsolutePath().normalize();
    // taken before the flush: a file written while it runs may not be covered, and stays
    Map<Path, Long> covered = new HashMap<>();
    unforced.forEach(
        (p, n) -> {
          if (p.startsWith(root)) covered.put(p, n);
        });
    if (syncfsReaches(root)) {
      Force force = new Force(Kind.FILE_SYSTEM, root, -1);
      watch.beginning(force);
      long start = System.nanoTime();
      if (!ran(List.of("sync", "-f", root.toString())) && !ran(List.of("sync"))) {
        throw new IOException(
            "cannot sync the file system of "
                + dir
                + ": neither `sync -f` nor `sync` ran (is coreutils' sync on the PATH?)");
      }
      counted(start);
      watch.ended(force);
    } else {
      Set<Path> renamedInto = new LinkedHashSet<>();
      for (Path file : covered.keySet()) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
          force(Kind.FILE, file, ch);
        } catch (NoSuchFileException e) {
          continue; // a reader moved or deleted it: its own rename or unlink, not ours to keep
        }
        filesForcedForFileSystem.incrementAndGet();
        renamedInto.add(file.getParent());
      }
      for (Path d : renamedInto) forceDirectory(d);
    }
    covered.forEach(unforced::remove);
  }

  /**
   * False where syncfs(2) of {@code dir}'s file system cannot reach its disk: a FUSE mount ({@code
   * fuse}, {@code fuse.NAME}), to which the kernel forwards no syncfs (it does to virtiofs and
   * fuseblk). Its files must each be fsynced.
   */
  static boolean syncfsReaches(Path dir) throws IOException {
    Path existing = dir.toAbsolutePath().normalize();
    while (existing != null && !Files.exists(existing)) existing = existing.getParent();
    if (existing == null) return true;
    FileStore store = Files.getFileStore(existing);
    String type = store.type();
    return !(type.equals("fuse") || type.startsWith("fuse."));
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
                        force(Kind.DIRECTORY, d, ch);
                      }
                    }))
        .await();
  }

  /**
   * Forces a file's bytes and its length (an fdatasync), counted with the others: enough for an
   * append-only journal.
   */
  void forceData(Path file, FileChannel ch) throws IOException {
    Force force = new Force(Kind.FILE_DATA, file.toAbsolutePath().normalize(), ch.size());
    watch.beginning(force);
    long start = System.nanoTime();
    ch.force(false);
    counted(start);
    watch.ended(force);
  }

  private void force(Kind kind, Path path, FileChannel ch) throws IOException {
    Force force = new Force(kind, path, -1);
    watch.beginning(force);
    long start = System.nanoTime();
    ch.force(true);
    counted(start);
    watch.ended(force);
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

  /**
   * Files fsynced one by one because their file system takes no syncfs ({@link #syncFileSystem}).
   */
  long filesForcedForFileSystem() {
    return filesForcedForFileSystem.get();
  }
}
