package io.pkibench.text;

import java.util.Locale;

/**
 * Text that came from outside pkibench (a server's answer, a result file, a scenario file, a name
 * sent over the wire) as a terminal, a log line or a report's plain text may show it. Every
 * character that could move the cursor, end the line, start an escape sequence or make the line
 * read otherwise than it holds is written as its code; printable text, accented letters and other
 * scripts included, stays as it is, so a refusal in the receiver's words still reads.
 *
 * <p>One function for the whole program, so that no caller keeps a narrower list of its own: the C0
 * and C1 controls and DEL ({@code \x1b}), the bidirectional overrides and isolates U+202A–U+202E
 * and U+2066–U+2069 ("Trojan Source") with every other invisible format character (Unicode's Cf:
 * U+200B, U+FEFF, the tag characters), the line and paragraph separators, lone surrogates ({@code
 * \u202e}, {@code \U000e0041}), and the backslash itself ({@code \\}), so that a {@code \x1b} sent
 * as text is never mistaken for one written here.
 */
public final class OutsideText {
  /** The most characters {@link #forTerminal(String)} keeps before cutting with "…". */
  public static final int DEFAULT_MOST_CHARS = 2_000;

  private OutsideText() {}

  /**
   * {@code text} escaped as the class says, cut at {@link #DEFAULT_MOST_CHARS} characters; {@code
   * null} reads "null".
   */
  public static String forTerminal(String text) {
    return forTerminal(text, DEFAULT_MOST_CHARS);
  }

  /**
   * {@code text} escaped as the class says, cut after its first {@code mostChars} characters with
   * "…".
   */
  public static String forTerminal(String text, int mostChars) {
    if (mostChars < 1)
      throw new IllegalArgumentException("mostChars must be at least 1, was " + mostChars);
    if (text == null) return "null";
    int end = Math.min(text.length(), mostChars);
    if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1)))
      end--; // never split a pair
    StringBuilder shown = new StringBuilder(end + 16);
    for (int i = 0; i < end; ) {
      int cp = text.codePointAt(i);
      int width = Character.charCount(cp);
      if (i + width > end)
        width = 1; // a high surrogate whose pair lies past the cut: shown as a lone one
      if (width == 1) cp = text.charAt(i);
      appendShown(shown, cp);
      i += width;
    }
    if (end < text.length()) shown.append('…');
    return shown.toString();
  }

  private static void appendShown(StringBuilder shown, int cp) {
    if (cp == '\\') shown.append("\\\\");
    else if (cp < 0x100 && hidden(cp)) shown.append(String.format(Locale.ROOT, "\\x%02x", cp));
    else if (cp <= 0xffff && hidden(cp)) shown.append(String.format(Locale.ROOT, "\\u%04x", cp));
    else if (hidden(cp)) shown.append(String.format(Locale.ROOT, "\\U%08x", cp));
    else shown.appendCodePoint(cp);
  }

  private static boolean hidden(int cp) {
    if (cp == '\\' || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) return true;
    return switch (Character.getType(cp)) {
      case Character.FORMAT,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR,
          Character.SURROGATE,
          Character.PRIVATE_USE ->
          true;
      case Character.UNASSIGNED ->
          cp >= 0xe0000; // tag characters not yet assigned in this JDK's tables
      default -> false;
    };
  }
}
