package io.pkibench.files;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * How pkibench writes a file beside a result (the result, its interval log, recordings, profiles,
 * reports, charts, journals, samples): readable by its owner only (mode 0600, given when the file
 * is created, so it is never readable by others, not even for a moment), and never through a
 * symbolic link someone planted at its path, which could point at any file the user may write. A
 * whole file is written to a temporary file beside it and renamed over its path ({@link #replace}):
 * a link there is replaced, not followed, and readers never see half a file. A file written as a
 * run goes ({@link #createNew}) refuses a link at its path.
 */
public final class OutputFiles {
  /** S_IFMT and S_IFBLK of {@code stat(2)}'s mode, as the "unix" attribute view gives it. */
  private static final int FILE_TYPE = 0170000, BLOCK_DEVICE = 0060000;

  private OutputFiles() {}

  /** Writes a whole file's content to {@code out}. */
  public interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  /** {@code text} in UTF-8 as the whole of {@code file}; see {@link #replace(Path, Content)}. */
  public static void replace(Path file, String text) throws IOException {
    replace(file, text.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code bytes} as the whole of {@code file}; see {@link #replace(Path, Content)}. */
  public static void replace(Path file, byte[] bytes) throws IOException {
    replace(file, out -> out.write(bytes));
  }

  /**
   * Writes {@code content} to a new owner-only temporary file beside {@code file}, syncs it and
   * renames it over {@code file}: a symbolic link at {@code file} is replaced by the file, its
   * target left alone. A device or a pipe there ({@code --out /dev/null}, {@code /dev/stdout}) is
   * written through instead: renamed over, it would become a file (as root, /dev/null itself); a
   * block device is refused, as no output belongs on a disk's raw blocks.
   */
  public static void replace(Path file, Content content) throws IOException {
    replace(file, content, "rw-------");
  }

  /**
   * {@code bytes} as the whole of {@code file}, a script its owner may run (mode 0700); see {@link
   * #replace(Path, Content)}.
   */
  public static void replaceScript(Path file, byte[] bytes) throws IOException {
    replace(file, out -> out.write(bytes), "rwx------");
  }

  private static void replace(Path file, Content content, String mode) throws IOException {
    if (Files.exists(file) && !Files.isRegularFile(file) && !Files.isDirectory(file)) {
      if (isBlockDevice(file)) throw new IOException(file + " is a block device; give a file name");
      try (OutputStream out = Files.newOutputStream(file)) {
        content.writeTo(out);
      }
      return;
    }
    Path tmp = reserveBeside(file, mode);
    try {
      try (FileChannel channel =
          FileChannel.open(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        content.writeTo(kept(Channels.newOutputStream(channel)));
        channel.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * A new, empty, owner-only file beside {@code file}, under a name nobody could have planted a
   * link at: for a writer that must be handed a path (a JFR dump, a flame graph converter), whose
   * file {@link #moveInto} then puts in place.
   */
  public static Path reserveBeside(Path file) throws IOException {
    return reserveBeside(file, "rw-------");
  }

  private static Path reserveBeside(Path file, String mode) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    return Files.createTempFile(dir, "." + file.getFileName(), ".tmp", mode(dir, mode));
  }

  /**
   * Syncs {@code reserved} (from {@link #reserveBeside}) and renames it over {@code file},
   * replacing a link there rather than following it.
   */
  public static void moveInto(Path reserved, Path file) throws IOException {
    try {
      try (FileChannel channel =
          FileChannel.open(reserved, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        channel.force(true);
      }
      Files.move(
          reserved, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(reserved);
    }
  }

  /**
   * {@code file} created anew, owner-only, for writing as a run goes (an interval log, a journal):
   * a symbolic link at its path is refused with an exception that says so; a regular file there (an
   * earlier run's) is removed first, so its mode does not carry over. The stream is not buffered:
   * each write reaches the file.
   */
  public static OutputStream createNew(Path file) throws IOException {
    if (Files.isSymbolicLink(file)) throw linkRefused(file);
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) Files.delete(file);
    try {
      // CREATE_NEW is O_EXCL: it fails on a link planted since the check above, dangling or not,
      // instead of following it.
      return Channels.newOutputStream(
          Files.newByteChannel(
              file,
              Set.<OpenOption>of(
                  StandardOpenOption.CREATE_NEW,
                  StandardOpenOption.WRITE,
                  LinkOption.NOFOLLOW_LINKS),
              mode(file.toAbsolutePath().getParent(), "rw-------")));
    } catch (FileAlreadyExistsException e) {
      if (Files.isSymbolicLink(file)) throw linkRefused(file);
      throw new IOException(
          file
              + " exists and is not a regular file ("
              + (Files.isDirectory(file) ? "a directory" : "a device or a pipe")
              + "); remove it or give another name",
          e);
    }
  }

  /**
   * The exception for a link at a path pkibench writes: it names the path, says it is a link, and
   * the way out.
   */
  public static IOException linkRefused(Path file) {
    String target;
    try {
      target = " to " + Files.readSymbolicLink(file);
    } catch (IOException | UnsupportedOperationException e) {
      target = "";
    }
    return new IOException(
        file
            + " is a symbolic link"
            + target
            + "; pkibench does not write through a link (it could point at any file):"
            + " remove it, or write the result elsewhere");
  }

  /**
   * {@code out}, which a writer may close (Batik's PNG transcoder does) while the file still has to
   * be synced.
   */
  private static OutputStream kept(OutputStream out) {
    return new FilterOutputStream(out) {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
      }

      @Override
      public void close() {
        // the file's channel is closed by replace, after its force
      }
    };
  }

  /**
   * {@code mode} where the file system has POSIX modes (not on Windows, whose ACLs already keep a
   * user's files to that user).
   */
  private static FileAttribute<?>[] mode(Path dir, String mode) {
    if (dir == null || !dir.getFileSystem().supportedFileAttributeViews().contains("posix"))
      return new FileAttribute<?>[0];
    return new FileAttribute<?>[] {
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(mode))
    };
  }

  private static boolean isBlockDevice(Path file) {
    try {
      return ((Integer) Files.getAttribute(file, "unix:mode") & FILE_TYPE) == BLOCK_DEVICE;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }
}
