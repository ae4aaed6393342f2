package io.pkibench.formats.pec;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The top-level header block of a message file, read without the body: what the reliability check
 * and the end-to-end workload need to tell a provider document's kind and the message it refers to.
 */
public final class MailHeaders {
  private static final int MAX_HEADER_BYTES = 256 * 1024;

  private MailHeaders() {}

  /** Header names in lower case, folded lines unfolded; the first of a repeated header wins. */
  static Map<String, String> read(Path file) throws IOException {
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 8192)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
      int prev = -1;
      int prev2 = -1;
      int b;
      while ((b = in.read()) >= 0 && out.size() < MAX_HEADER_BYTES) {
        out.write(b);
        if (b == '\n' && (prev == '\n' || (prev == '\r' && prev2 == '\n'))) break;
        prev2 = prev;
        prev = b;
      }
      return parse(out.toString(StandardCharsets.ISO_8859_1));
    }
  }

  /**
   * The header block of a message in memory (up to its first blank line, at most 256 KB), parsed as
   * {@link #read}.
   */
  public static Map<String, String> of(byte[] message) {
    int end = Math.min(message.length, MAX_HEADER_BYTES);
    for (int i = 0; i + 1 < end; i++) {
      if (message[i] == '\n'
          && (message[i + 1] == '\n'
              || (message[i + 1] == '\r' && i + 2 < end && message[i + 2] == '\n'))) {
        end = i + 1;
        break;
      }
    }
    return parse(new String(message, 0, end, StandardCharsets.ISO_8859_1));
  }

  static Map<String, String> parse(String block) {
    Map<String, String> h = new HashMap<>();
    for (String line : block.replaceAll("\r?\n[ \t]+", " ").split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0)
        h.putIfAbsent(
            line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).strip());
    }
    return h;
  }
}
