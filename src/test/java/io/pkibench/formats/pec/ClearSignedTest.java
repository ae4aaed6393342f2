package io.pkibench.formats.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The word-at-a-time scans: bare line breaks against the plain reading of RFC 5751's canonical
 * form, high bytes at every position.
 */
class ClearSignedTest {
  private static boolean bareByReference(byte[] b) {
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '\n' && (i == 0 || b[i - 1] != '\r')) return true;
      if (b[i] == '\r' && (i + 1 == b.length || b[i + 1] != '\n')) return true;
    }
    return false;
  }

  /**
   * Random texts of CR, LF, their neighbours in value and high bytes, across word ends and tails:
   * 200,000 of them.
   */
  @Test
  void hasBareLineBreak_agreesWithTheByteByByteReading() {
    byte[] alphabet = {
      '\r', '\n', '\r', '\n', 'a', 0x0B, 0x0C, 0x0E, 0x09, (byte) 0x8A, (byte) 0x8D, 0
    };
    SplittableRandom random = new SplittableRandom(5751);
    int bare = 0;
    for (int n = 0; n < 200_000; n++) {
      byte[] text = new byte[random.nextInt(0, 34)];
      for (int i = 0; i < text.length; i++) text[i] = alphabet[random.nextInt(alphabet.length)];
      // most CRs made CRLF, so that canonical texts are common too
      for (int i = 0; i + 1 < text.length; i++)
        if (text[i] == '\r' && random.nextInt(4) > 0) text[++i] = '\n';
      for (int i = 1; i < text.length; i++)
        if (text[i] == '\n' && text[i - 1] != '\r' && random.nextInt(4) > 0) text[i - 1] = '\r';
      boolean expected = bareByReference(text);
      if (expected) bare++;
      assertEquals(
          expected, ClearSigned.hasBareLineBreak(text), () -> HexFormat.of().formatHex(text));
    }
    assertTrue(
        bare > 50_000 && bare < 150_000, "both kinds were drawn: " + bare + " of 200,000 bare");
  }

  @Test
  void has8bit_findsAHighByteAtEveryPosition_ofWordsAndTail() {
    for (int length = 0; length <= 19; length++) {
      byte[] ascii = new byte[length];
      java.util.Arrays.fill(ascii, (byte) 'a');
      assertFalse(ClearSigned.has8bit(ascii), "all ASCII, length " + length);
      for (int at = 0; at < length; at++) {
        byte[] high = ascii.clone();
        high[at] = (byte) 0x80;
        assertTrue(ClearSigned.has8bit(high), "0x80 at " + at + " of " + length);
      }
    }
  }
}
