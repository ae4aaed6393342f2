package io.pkibench.testing;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Ways to damage a valid input for a fuzz target: bytes (DER, binary envelopes) or text (JSON).
 * Each keeps most of the seed, so the decoder gets past its first checks.
 */
public final class Mutations {
  private Mutations() {}

  public static byte[] bytes(byte[] seed, SplittableRandom r) {
    byte[] b = seed.clone();
    switch (r.nextInt(8)) {
      case 0 -> { // a few random bytes anywhere
        for (int n = 1 + r.nextInt(4); n > 0; n--) b[r.nextInt(b.length)] = (byte) r.nextInt(256);
      }
      case 1 -> { // one byte to an edge value: DER tags and lengths live at the edges
        int[] edges = {
          0x00, 0x01, 0x02, 0x04, 0x05, 0x06, 0x30, 0x7F, 0x80, 0x81, 0x82, 0x84, 0x88, 0xA0, 0xFF
        };
        b[r.nextInt(b.length)] = (byte) edges[r.nextInt(edges.length)];
      }
      case 2 -> b = Arrays.copyOf(b, r.nextInt(b.length)); // cut
      case 3 -> { // extended with noise
        int extra = 1 + r.nextInt(64);
        b = Arrays.copyOf(b, b.length + extra);
        for (int i = b.length - extra; i < b.length; i++) b[i] = (byte) r.nextInt(256);
      }
      case 4 -> b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8)); // one bit
      case 5 -> { // a span repeated
        int from = r.nextInt(b.length);
        int length = 1 + r.nextInt(Math.min(32, b.length - from));
        byte[] longer = new byte[b.length + length];
        System.arraycopy(b, 0, longer, 0, from + length);
        System.arraycopy(b, from, longer, from + length, b.length - from);
        b = longer;
      }
      case 6 -> { // a length byte made huge: 0x84 then four 0xFF
        int at = r.nextInt(b.length);
        byte[] longer = Arrays.copyOf(b, b.length + 4);
        System.arraycopy(b, at, longer, at + 4, b.length - at);
        longer[at] = (byte) 0x84;
        for (int i = 1; i < 5 && at + i < longer.length; i++) longer[at + i] = (byte) 0xFF;
        b = longer;
      }
      default -> { // noise of a random length
        b = new byte[r.nextInt(2 * seed.length)];
        for (int i = 0; i < b.length; i++) b[i] = (byte) r.nextInt(256);
      }
    }
    return b;
  }

  private static final String[] JSON_PIECES = {
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "true",
    "-0",
    "1e999",
    "-1",
    "9223372036854775808",
    "\\u0000",
    "\\ud800",
    "\\",
    "\u0000",
    "\u00ff",
    "NaN",
    "[[[[[[[[",
    "{\"a\":{\"a\":{\"a\":",
    " ",
    "0x10"
  };
  private static final String[] VALUES = {
    "null",
    "true",
    "1",
    "-1",
    "1e999",
    "\"\"",
    "[]",
    "{}",
    "\"AAAA\"",
    "\"@@@@\"",
    "[\"AAAA\"]",
    "\"" + "A".repeat(70_000) + "\""
  };

  public static String text(String seed, SplittableRandom r) {
    StringBuilder s = new StringBuilder(seed);
    switch (r.nextInt(7)) {
      case 0 -> { // a character or two replaced by a JSON-significant piece
        for (int n = 1 + r.nextInt(2); n > 0 && !s.isEmpty(); n--) {
          int at = r.nextInt(s.length());
          s.replace(at, at + 1, JSON_PIECES[r.nextInt(JSON_PIECES.length)]);
        }
      }
      case 1 -> { // a span deleted
        if (!s.isEmpty()) {
          int at = r.nextInt(s.length());
          s.delete(at, Math.min(s.length(), at + 1 + r.nextInt(40)));
        }
      }
      case 2 -> { // a span repeated
        if (!s.isEmpty()) {
          int at = r.nextInt(s.length());
          s.insert(at, s.substring(at, Math.min(s.length(), at + 1 + r.nextInt(200))));
        }
      }
      case 3 -> { // a value replaced by one of another type
        int colon = s.indexOf(":", r.nextInt(Math.max(1, s.length())));
        if (colon >= 0) {
          int end = colon + 1;
          int depth = 0;
          boolean quoted = false;
          for (; end < s.length(); end++) {
            char c = s.charAt(end);
            if (c == '"' && s.charAt(end - 1) != '\\') quoted = !quoted;
            if (quoted) continue;
            if (c == '[' || c == '{') depth++;
            if (c == ']' || c == '}') {
              if (depth == 0) break;
              depth--;
            }
            if (c == ',' && depth == 0) break;
          }
          s.replace(colon + 1, end, VALUES[r.nextInt(VALUES.length)]);
        }
      }
      case 4 -> { // nested deep
        int depth = 1 + r.nextInt(5000);
        s.insert(0, "[".repeat(depth));
      }
      case 5 -> s.setLength(r.nextInt(s.length() + 1)); // cut
      default -> s.append(JSON_PIECES[r.nextInt(JSON_PIECES.length)]); // something after the end
    }
    return s.toString();
  }
}
