package io.pkibench.formats.pec;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.ContentDisposition;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.InternetHeaders;
import jakarta.mail.internet.MimeUtility;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import java.util.UUID;

/**
 * The content a provider signs in each document (RFC 2046 §5.1.3 multipart/mixed): the text, the
 * original as {@code postacert.eml} and {@code daticert.xml}. Written and read here in bulk: built
 * through Jakarta Mail's body parts and data handlers it cost as much CPU as both signatures of a
 * delivery, and read back through its parser, which goes byte by byte, a fifth of the receiving
 * path. Part headers are still read by Jakarta Mail's header and parameter parsers (folding,
 * quoting, RFC 2231), only the bodies are found and copied in bulk.
 */
final class DocumentBody {
  private static final byte[] CRLF = {'\r', '\n'};

  private DocumentBody() {}

  /**
   * The multipart/mixed part, headers first, in canonical CRLF form except inside the original,
   * which goes as it came (the caller canonicalises the whole before signing, RFC 5751 §3.1.1):
   * {@code original} and {@code daticertXml} are left out when null.
   */
  static byte[] write(String text, byte[] original, byte[] daticertXml) throws IOException {
    String boundary = "----=_pkibench_mixed_" + UUID.randomUUID().toString().replace("-", "");
    ByteArrayOutputStream out =
        new ByteArrayOutputStream(
            4096
                + (original == null ? 0 : original.length)
                + (daticertXml == null ? 0 : daticertXml.length * 4 / 3 + daticertXml.length / 38));
    ascii(out, "Content-Type: multipart/mixed;\r\n\tboundary=\"" + boundary + "\"\r\n\r\n");
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    boolean plain = isSevenBitText(utf8);
    ascii(
        out,
        "--"
            + boundary
            + "\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: "
            + (plain ? "7bit" : "quoted-printable")
            + "\r\n\r\n");
    if (plain) {
      out.writeBytes(utf8);
    } else {
      // closed to flush its last line; it closes the buffer too, which a ByteArrayOutputStream does
      // not mind
      try (OutputStream qp = MimeUtility.encode(out, "quoted-printable")) {
        qp.write(utf8);
      } catch (MessagingException e) {
        throw new IllegalStateException("quoted-printable is an encoding Jakarta Mail knows", e);
      }
    }
    if (original != null) {
      // message/rfc822 takes no base64 (RFC 2046 §5.2.1): the original goes as it came, 8bit when
      // it has such bytes
      ascii(
          out,
          "\r\n--"
              + boundary
              + "\r\nContent-Type: message/rfc822; name=\"postacert.eml\"\r\n"
              + "Content-Disposition: inline; filename=\"postacert.eml\"\r\nContent-Transfer-Encoding: "
              + (ClearSigned.has8bit(original) ? "8bit" : "7bit")
              + "\r\n\r\n");
      out.writeBytes(original);
    }
    if (daticertXml != null) {
      ascii(
          out,
          "\r\n--"
              + boundary
              + "\r\nContent-Type: application/xml; name=\"daticert.xml\"\r\n"
              + "Content-Disposition: inline; filename=\"daticert.xml\"\r\nContent-Transfer-Encoding: base64\r\n\r\n");
      out.writeBytes(Base64.getMimeEncoder(76, CRLF).encode(daticertXml));
    }
    ascii(out, "\r\n--" + boundary + "--\r\n");
    return out.toByteArray();
  }

  /**
   * The daticert.xml and postacert.eml of a signed part (headers, then a multipart/mixed body); the
   * original is null when there is none. What is not there or not readable is refused with what is
   * wrong.
   */
  static SignedContent read(byte[] signedPart) throws MessagingException, IOException {
    int bodyStart = ClearSigned.headerEnd(signedPart);
    ContentType type = contentType(headers(signedPart, bodyStart));
    String boundary = type.getParameter("boundary");
    if (!type.match("multipart/*") || boundary == null || boundary.isEmpty()) {
      throw new IllegalArgumentException("the signed part is not multipart/mixed");
    }
    Daticert daticert = null;
    byte[] original = null;
    for (byte[] part : ClearSigned.bodyParts(signedPart, bodyStart, boundary)) {
      int contentStart = ClearSigned.headerEnd(part);
      InternetHeaders headers = headers(part, contentStart);
      String file = fileName(headers);
      if ("daticert.xml".equals(file)) {
        daticert =
            Daticert.parse(
                decoded(part, contentStart, headers.getHeader("Content-Transfer-Encoding", null)));
      } else if ("postacert.eml".equals(file)) {
        original =
            Arrays.copyOfRange(
                part,
                contentStart,
                part.length); // as it came: a message/rfc822 part is not encoded
      }
    }
    if (daticert == null) throw new IllegalArgumentException("the signed part has no daticert.xml");
    return new SignedContent(daticert, original);
  }

  private static InternetHeaders headers(byte[] part, int end) throws MessagingException {
    return new InternetHeaders(new ByteArrayInputStream(part, 0, end));
  }

  private static ContentType contentType(InternetHeaders headers) throws MessagingException {
    String value = headers.getHeader("Content-Type", null);
    return new ContentType(
        value == null ? "text/plain" : value); // RFC 2045 §5.2: a part without one is text/plain
  }

  /** As Jakarta Mail's {@code getFileName}: the disposition's filename, else the type's name. */
  private static String fileName(InternetHeaders headers) throws MessagingException {
    String disposition = headers.getHeader("Content-Disposition", null);
    String name =
        disposition == null ? null : new ContentDisposition(disposition).getParameter("filename");
    return name != null ? name : contentType(headers).getParameter("name");
  }

  private static byte[] decoded(byte[] part, int from, String transferEncoding)
      throws MessagingException, IOException {
    String encoding =
        transferEncoding == null ? "7bit" : transferEncoding.trim().toLowerCase(Locale.ROOT);
    if (encoding.equals("base64")) {
      try {
        return Base64.getMimeDecoder().decode(Arrays.copyOfRange(part, from, part.length));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("daticert.xml is not valid base64: " + e.getMessage());
      }
    }
    try (InputStream in =
        MimeUtility.decode(new ByteArrayInputStream(part, from, part.length - from), encoding)) {
      return in.readAllBytes();
    }
  }

  private static void ascii(ByteArrayOutputStream out, String s) {
    out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Text that 7bit carries (RFC 2045 §2.7): ASCII without NUL or bare CR/LF, lines of at most 998
   * octets.
   */
  static boolean isSevenBitText(byte[] bytes) {
    int line = 0;
    for (int i = 0; i < bytes.length; i++) {
      byte b = bytes[i];
      if (b <= 0) return false;
      if (b == '\r') {
        if (i + 1 == bytes.length || bytes[i + 1] != '\n') return false;
      } else if (b == '\n') {
        if (i == 0 || bytes[i - 1] != '\r') return false;
        line = 0;
        continue;
      }
      if (++line > 998) return false;
    }
    return true;
  }
}
