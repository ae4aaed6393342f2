package io.pkibench.pki;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A file a user names, read whole but never past a size the kind of file can have: read up to the
 * limit and one byte more, since the size a file claims can lie ({@code /dev/zero}, a pipe, {@code
 * /proc} say 0). Past it, an IOException naming the file, the limit and what it was taken for.
 */
public final class InputFiles {
  private InputFiles() {}

  /**
   * The bytes of {@code file}, at most {@code maxBytes}; {@code what} names it in the refusal, e.g.
   * "a grants file".
   */
  public static byte[] read(Path file, long maxBytes, String what) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 16, maxBytes + 1));
      if (bytes.length > maxBytes) {
        throw new IOException(
            file
                + ": more than "
                + maxBytes
                + " bytes, past the limit for "
                + what
                + "; is it the file you meant?");
      }
      return bytes;
    }
  }

  /** The lines of {@code file} as UTF-8, the file at most {@code maxBytes}. */
  public static List<String> lines(Path file, long maxBytes, String what) throws IOException {
    return new String(read(file, maxBytes, what), StandardCharsets.UTF_8).lines().toList();
  }
}
