package io.pkibench.formats.pec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The signed content written and read by hand. Python's email package and openssl read what is
 * written in PecProviderTest; here the edges: the text's encoding chosen by what it holds, the
 * original carried untouched, and what the reader refuses.
 */
class DocumentBodyTest {
  static final Daticert DATA =
      new Daticert(
          "avvenuta-consegna",
          null,
          "alice@pec1.test",
          List.of(new Daticert.Recipient("bob@pec2.test", true)),
          null,
          "Fattura n. 7",
          "Gestore due",
          ZonedDateTime.parse("2026-11-23T10:30:00+01:00"),
          "opec.job1@pec1.test",
          "<m1@pec1.test>",
          "completa",
          "bob@pec2.test",
          null,
          null);

  @Test
  void sevenBitText_isCrlfAsciiWithShortLines() {
    assertTrue(DocumentBody.isSevenBitText("a\r\nb\r\n".getBytes(StandardCharsets.US_ASCII)));
    assertFalse(
        DocumentBody.isSevenBitText("a\nb".getBytes(StandardCharsets.US_ASCII)), "a bare LF");
    assertFalse(
        DocumentBody.isSevenBitText("a\rb".getBytes(StandardCharsets.US_ASCII)), "a bare CR");
    assertFalse(DocumentBody.isSevenBitText("è".getBytes(StandardCharsets.UTF_8)));
    assertFalse(DocumentBody.isSevenBitText(new byte[] {'a', 0, 'b'}), "NUL");
    assertTrue(DocumentBody.isSevenBitText("x".repeat(998).getBytes(StandardCharsets.US_ASCII)));
    assertFalse(
        DocumentBody.isSevenBitText("x".repeat(999).getBytes(StandardCharsets.US_ASCII)),
        "a line over 998 octets");
  }

  @Test
  void
      written_thenRead_givesTheOriginalUntouchedAndTheDaticert_theTextQuotedPrintableOnlyWhenItMustBe()
          throws Exception {
    byte[] original =
        "Subject: caff\u00e8\r\n\r\nbody with a bare\nline feed and a high byte \u00e8\r\n"
            .getBytes(StandardCharsets.ISO_8859_1);
    byte[] written =
        DocumentBody.write("Ricevuta: \u00e8 stato consegnato\r\n", original, DATA.toXml());
    String text = new String(written, StandardCharsets.ISO_8859_1);
    assertTrue(
        text.contains(
            "Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nRicevuta: =C3=A8 stato"),
        text);
    assertTrue(
        text.contains("Content-Transfer-Encoding: 8bit\r\n\r\n"),
        "the original has a high byte: " + text);
    SignedContent read = DocumentBody.read(written);
    assertArrayEquals(
        original,
        read.original(),
        "the original as it came, its bare LF too (the signer canonicalises the whole)");
    assertEquals(DATA, read.daticert());

    String plain =
        new String(
            DocumentBody.write("Ricevuta\r\n", null, DATA.toXml()), StandardCharsets.ISO_8859_1);
    assertTrue(plain.contains("Content-Transfer-Encoding: 7bit\r\n\r\nRicevuta\r\n"), plain);
    assertFalse(plain.contains("postacert.eml"), plain);
    assertNull(DocumentBody.read(plain.getBytes(StandardCharsets.ISO_8859_1)).original());
  }

  @Test
  void read_refusesWhatIsNotADocumentsContent_sayingWhat() throws Exception {
    byte[] noDaticert =
        DocumentBody.write(
            "text\r\n", "Subject: x\r\n\r\ny\r\n".getBytes(StandardCharsets.US_ASCII), null);
    var e = assertThrows(IllegalArgumentException.class, () -> DocumentBody.read(noDaticert));
    assertEquals("the signed part has no daticert.xml", e.getMessage());
    var notMixed =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                DocumentBody.read(
                    "Content-Type: text/plain\r\n\r\nhello\r\n"
                        .getBytes(StandardCharsets.US_ASCII)));
    assertEquals("the signed part is not multipart/mixed", notMixed.getMessage());
    byte[] badBase64 =
        new String(DocumentBody.write("t\r\n", null, DATA.toXml()), StandardCharsets.ISO_8859_1)
            .replaceFirst("(?s)(base64\r\n\r\n)[A-Za-z0-9+/]{4}", "$1QQ=Q")
            .getBytes(StandardCharsets.ISO_8859_1);
    var base64 = assertThrows(IllegalArgumentException.class, () -> DocumentBody.read(badBase64));
    assertTrue(
        base64.getMessage().startsWith("daticert.xml is not valid base64"), base64.getMessage());
  }
}
