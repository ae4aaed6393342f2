package io.pkibench.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks of the files a command line names, made before anything runs, so that a missing PIN file
 * or an output nobody can write is said with its flag and the fix (exit 2), not found midway as a
 * bare path.
 */
final class FileFlags {
  private FileFlags() {}

  /**
   * {@code file} (as given, {@code resolved} on disk) exists and can be read; {@code what} says
   * what it must hold.
   */
  static List<String> readable(String flag, Path given, Path resolved, String what) {
    if (!Files.exists(resolved))
      return List.of(flag + " " + given + ": no such file; it must hold " + what);
    if (Files.isDirectory(resolved))
      return List.of(flag + " " + given + ": is a directory; give the file that holds " + what);
    if (!Files.isReadable(resolved))
      return List.of(flag + " " + given + ": cannot be read (permissions); it must hold " + what);
    return List.of();
  }

  private static String reason(Exception e) {
    return switch (e) {
      case FileAlreadyExistsException f -> f.getFile() + " is a file";
      case NoSuchFileException n -> "no such directory " + n.getFile();
      case AccessDeniedException a -> "permission denied at " + a.getFile();
      default -> e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    };
  }

  /**
   * {@code file} can be written: its directory exists (it is made here if need be) and is writable.
   */
  static List<String> writable(String flag, Path given, Path resolved) {
    if (Files.isDirectory(resolved))
      return List.of(flag + " " + given + ": is a directory; give a file name in it");
    Path dir = resolved.toAbsolutePath().getParent();
    try {
      Files.createDirectories(dir); // made now rather than after the run has measured something
    } catch (IOException | SecurityException e) {
      return List.of(
          flag
              + " "
              + given
              + ": its directory "
              + dir
              + " cannot be made ("
              + reason(e)
              + "); give a path under a directory you can write");
    }
    if (!Files.isWritable(dir) || (Files.exists(resolved) && !Files.isWritable(resolved))) {
      return List.of(
          flag
              + " "
              + given
              + ": "
              + (Files.exists(resolved) ? resolved : dir)
              + " cannot be written (permissions); give a path you can write");
    }
    return List.of();
  }
}
