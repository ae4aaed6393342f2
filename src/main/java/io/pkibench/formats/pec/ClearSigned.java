package io.pkibench.formats.pec;

import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The body of an S/MIME clear-signed message (RFC 5751 §3.5.3, RFC 1847): {@code multipart/signed}
 * whose first part is the signed content byte for byte and whose second is the detached CMS
 * signature ({@code smime.p7s}). Written and split here in bulk, so that the content is serialised
 * once and digested in one pass, where BouncyCastle's S/MIME classes re-serialise it through a
 * byte-at-a-time canonicaliser (that was most of a document's cost).
 */
final class ClearSigned {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private ClearSigned() {}

  /** The signed part and the DER signature found in a multipart/signed body. */
  record Parts(byte[] signedPart, byte[] signature) {}

  /** The Content-Type of a clear-signed message with this boundary. */
  static String contentType(String boundary) {
    return "multipart/signed; protocol=\"application/pkcs7-signature\"; micalg=sha-256; boundary=\""
        + boundary
        + "\"";
  }

  /**
   * {@code headerLines} (each a complete, possibly folded header), a blank line, and the two parts.
   */
  static byte[] message(
      List<String> headerLines, byte[] signedPart, byte[] signatureDer, String boundary) {
    ByteArrayOutputStream out =
        new ByteArrayOutputStream(signedPart.length + signatureDer.length * 2 + 4096);
    for (String line : headerLines) {
      out.writeBytes(line.getBytes(StandardCharsets.UTF_8));
      out.writeBytes(CRLF);
    }
    out.writeBytes(CRLF);
    out.writeBytes(
        ("This is an S/MIME signed message\r\n\r\n--" + boundary + "\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(signedPart);
    out.writeBytes(
        ("\r\n--"
                + boundary
                + "\r\n"
                + "Content-Type: application/pkcs7-signature; name=\"smime.p7s\"; smime-type=signed-data\r\n"
                + "Content-Transfer-Encoding: base64\r\n"
                + "Content-Disposition: attachment; filename=\"smime.p7s\"\r\n"
                + "Content-Description: S/MIME Cryptographic Signature\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(Base64.getMimeEncoder(76, CRLF).encode(signatureDer));
    out.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  /**
   * The two parts of a multipart/signed {@code body} delimited by {@code boundary}: the first
   * exactly as it lies between its delimiters (then in canonical CRLF form, which is what was
   * signed), the second's base64 decoded. Anything else is refused with what is wrong.
   */
  static Parts split(byte[] body, String boundary) {
    List<byte[]> parts = bodyParts(body, boundary);
    if (parts.size() < 2)
      throw new IllegalArgumentException(
          "the multipart/signed body has no second part (the signature)");
    if (parts.size() > 2)
      throw new IllegalArgumentException(
          "the multipart/signed body has " + parts.size() + " parts, not two");
    byte[] part = parts.get(1);
    int headerEnd = headerEnd(part);
    String headers =
        new String(part, 0, headerEnd, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    if (!headers.contains("application/pkcs7-signature")
        && !headers.contains("application/x-pkcs7-signature")) {
      throw new IllegalArgumentException("the second part is not application/pkcs7-signature");
    }
    if (!headers.contains("base64"))
      throw new IllegalArgumentException("the signature part is not base64-encoded");
    byte[] signature;
    try {
      signature = Base64.getMimeDecoder().decode(Arrays.copyOfRange(part, headerEnd, part.length));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the signature part is not valid base64: " + e.getMessage());
    }
    return new Parts(canonical(parts.get(0)), signature);
  }

  /**
   * The body parts of a multipart {@code body} (RFC 2046 §5.1.1), each as it lies between its
   * delimiters, headers and content; the preamble and epilogue left out. Found with String.indexOf,
   * which is vectorised: Jakarta Mail's parser, byte by byte, was the largest cost of reading an
   * envelope.
   */
  static List<byte[]> bodyParts(byte[] body, String boundary) {
    return bodyParts(body, 0, boundary);
  }

  /**
   * The same for a body that starts at {@code from} in {@code bytes} (after a part's headers),
   * without copying it out first.
   */
  static List<byte[]> bodyParts(byte[] body, int from, String boundary) {
    String delimiter = "--" + boundary;
    String text = new String(body, StandardCharsets.ISO_8859_1);
    int at = delimiterAt(text, body, delimiter, from);
    if (at < 0)
      throw new IllegalArgumentException(
          "the multipart body has no part delimited by its boundary");
    List<byte[]> parts = new ArrayList<>();
    while (!closing(body, at + delimiter.length())) {
      int start = lineEnd(body, at);
      int next = delimiterAt(text, body, delimiter, start);
      if (next < 0)
        throw new IllegalArgumentException("the multipart body is not closed by its boundary");
      int end = next - (next >= 2 && body[next - 2] == '\r' ? 2 : 1);
      parts.add(Arrays.copyOfRange(body, start, Math.max(start, end)));
      at = next;
    }
    return parts;
  }

  private static boolean closing(byte[] body, int afterDelimiter) {
    return afterDelimiter + 1 < body.length
        && body[afterDelimiter] == '-'
        && body[afterDelimiter + 1] == '-';
  }

  /**
   * Where a part's content starts: after the blank line that ends its headers (at 0 or 2 for a part
   * without headers).
   */
  static int headerEnd(byte[] part) {
    if (part.length >= 2 && part[0] == '\r' && part[1] == '\n') return 2;
    if (part.length >= 1 && part[0] == '\n') return 1;
    // Headers are short: the first 8 KB are searched before all of a part (up to 256 KB), not a
    // copy of the whole each time.
    for (int window : new int[] {8 * 1024, 256 * 1024}) {
      String text = new String(part, 0, Math.min(part.length, window), StandardCharsets.ISO_8859_1);
      int crlf = text.indexOf("\r\n\r\n");
      int lf = text.indexOf("\n\n");
      if (crlf >= 0 && (lf < 0 || crlf < lf)) return crlf + 4;
      if (lf >= 0) return lf + 2;
      if (part.length <= window) break;
    }
    throw new IllegalArgumentException("a body part has no blank line after its headers");
  }

  /**
   * {@code bytes} with every line ending CRLF (RFC 5751 §3.1.1); the same array when it already is.
   */
  static byte[] canonical(byte[] bytes) {
    if (!hasBareLineBreak(bytes)) return bytes;
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + bytes.length / 32);
    for (int i = 0; i < bytes.length; i++) {
      byte b = bytes[i];
      if (b == '\n' && (i == 0 || bytes[i - 1] != '\r')) out.writeBytes(CRLF);
      else if (b == '\r' && (i + 1 == bytes.length || bytes[i + 1] != '\n')) out.writeBytes(CRLF);
      else out.write(b);
    }
    return out.toByteArray();
  }

  /**
   * A CR not followed by LF or an LF not preceded by CR anywhere in {@code bytes}. Eight bytes at a
   * time: only a word holding a CR or an LF is looked into (this ran on every signed part, a 60 KB
   * message's ~800 lines; searched through a Latin-1 copy with String.indexOf it was still 5% of
   * the receiving path).
   */
  static boolean hasBareLineBreak(byte[] bytes) {
    int i = 0;
    for (; i + Long.BYTES <= bytes.length; i += Long.BYTES) {
      long word = (long) LONGS.get(bytes, i);
      if (holds(word, '\n') || holds(word, '\r')) {
        for (int j = i; j < i + Long.BYTES; j++) if (bare(bytes, j)) return true;
      }
    }
    for (; i < bytes.length; i++) if (bare(bytes, i)) return true;
    return false;
  }

  /**
   * Any byte over 127, eight at a time (a loop of bytes was 7% of the sending path: the original is
   * scanned per document).
   */
  static boolean has8bit(byte[] bytes) {
    int i = 0;
    for (; i + Long.BYTES <= bytes.length; i += Long.BYTES)
      if (((long) LONGS.get(bytes, i) & 0x8080808080808080L) != 0) return true;
    for (; i < bytes.length; i++) if (bytes[i] < 0) return true;
    return false;
  }

  private static boolean bare(byte[] bytes, int i) {
    return bytes[i] == '\n'
        ? i == 0 || bytes[i - 1] != '\r'
        : bytes[i] == '\r' && (i + 1 == bytes.length || bytes[i + 1] != '\n');
  }

  /**
   * Whether any byte of {@code word} is {@code c} (the zero-byte test of "Bit Twiddling Hacks" on
   * word XOR c).
   */
  private static boolean holds(long word, char c) {
    long x = word ^ (c * 0x0101010101010101L);
    return ((x - 0x0101010101010101L) & ~x & 0x8080808080808080L) != 0;
  }

  /**
   * Where a line {@code --boundary} (optionally {@code --boundary--}, then spaces) starts at or
   * after {@code from}; -1 if none.
   */
  private static int delimiterAt(String text, byte[] body, String d, int from) {
    for (int i = text.indexOf(d, from); i >= 0; i = text.indexOf(d, i + 1)) {
      if (i != 0 && body[i - 1] != '\n') continue;
      int j = i + d.length();
      if (j + 1 < body.length && body[j] == '-' && body[j + 1] == '-') j += 2;
      while (j < body.length && (body[j] == ' ' || body[j] == '\t')) j++;
      if (j == body.length || body[j] == '\r' || body[j] == '\n') return i;
    }
    return -1;
  }

  private static int lineEnd(byte[] body, int from) {
    int i = from;
    while (i < body.length && body[i] != '\n') i++;
    return Math.min(body.length, i + 1);
  }
}
