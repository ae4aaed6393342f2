package io.pkibench.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class OutsideTextTest {
  @Test
  void forTerminal_controlsAndEscapeSequences_writtenAsCodes() {
    assertEquals(
        "\\x1b[2J\\x0d\\x0aINFO forged\\x07\\x7f\\x9b",
        OutsideText.forTerminal("\u001b[2J\r\nINFO forged\u0007\u007f\u009b"));
  }

  @Test
  void forTerminal_bidiOverridesAndInvisibleFormats_writtenAsCodes() {
    assertEquals(
        "ok \\u202egnp.exe \\u2066x\\u2069 \\u200b\\ufeff \\u2028",
        OutsideText.forTerminal("ok \u202egnp.exe \u2066x\u2069 \u200b\ufeff \u2028"));
    assertEquals(
        "tag \\U000e0041",
        OutsideText.forTerminal("tag " + new String(Character.toChars(0xe0041))));
  }

  @Test
  void forTerminal_printableTextOfAnyScript_unchanged() {
    String text = "São Paulo — assinatura inválida: 署名 😀 ÿ";
    assertEquals(text, OutsideText.forTerminal(text));
    assertEquals(
        text,
        OutsideText.forTerminal(text, text.length()),
        "unchanged when cut at its own length too");
  }

  @Test
  void forTerminal_backslash_doubledSoAWrittenCodeIsNeverForged() {
    assertEquals("\\\\x1b", OutsideText.forTerminal("\\x1b"));
    assertEquals("\\\\", OutsideText.forTerminal("\\"), "a lone backslash doubled");
  }

  @Test
  void forTerminal_loneSurrogates_writtenAsCodes() {
    assertEquals("a\\ud800b\\udc00", OutsideText.forTerminal("a\ud800b\udc00"));
  }

  @Test
  void forTerminal_longText_cutWithoutSplittingAPair() {
    assertEquals("abc…", OutsideText.forTerminal("abcdef", 3));
    assertEquals(
        "ab…", OutsideText.forTerminal("ab😀z", 3)); // the pair straddles the cut: left out whole
    assertEquals("null", OutsideText.forTerminal(null));
    assertThrows(IllegalArgumentException.class, () -> OutsideText.forTerminal("x", 0));
  }
}
