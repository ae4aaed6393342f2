package io.pkibench.formats.pec;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;

/**
 * Users' messages as the original's mailer made them: a short text and an attachment, {@code size}
 * bytes in all, CRLF lines as SMTP carries them, with a Message-ID of their own.
 */
public final class PecMessages {
  private PecMessages() {}

  /**
   * A message of about {@code sizeBytes} (headers and MIME included) from {@code from} to {@code
   * to}, number {@code n}, its Message-ID {@code messageId}.
   */
  public static byte[] message(
      String from, String to, String messageId, String subject, int sizeBytes, long seed) {
    StringBuilder m = new StringBuilder(sizeBytes + 512);
    String boundary = "pkibench-" + Long.toHexString(seed);
    m.append("From: ").append(from).append("\r\n");
    m.append("To: ").append(to).append("\r\n");
    m.append("Subject: ").append(subject).append("\r\n");
    m.append("Message-ID: ").append(messageId).append("\r\n");
    m.append("Date: Mon, 23 Nov 2026 10:00:00 +0100\r\n");
    m.append("MIME-Version: 1.0\r\n");
    m.append("Content-Type: multipart/mixed; boundary=\"").append(boundary).append("\"\r\n\r\n");
    m.append("--")
        .append(boundary)
        .append("\r\nContent-Type: text/plain; charset=US-ASCII\r\n\r\n");
    m.append("Message ").append(subject).append(" sent by pkibench to measure a PEC provider.\r\n");
    m.append("--")
        .append(boundary)
        .append("\r\nContent-Type: application/octet-stream; name=\"attachment.bin\"\r\n")
        .append(
            "Content-Disposition: attachment; filename=\"attachment.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    int room = Math.max(0, sizeBytes - m.length() - boundary.length() - 8);
    // base64 lines of 76 characters + CRLF carry 57 bytes each
    byte[] attachment = new byte[room / 78 * 57];
    new SplittableRandom(seed).nextBytes(attachment);
    String encoded =
        Base64.getMimeEncoder(76, "\r\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(attachment);
    m.append(encoded).append("\r\n--").append(boundary).append("--\r\n");
    return m.toString().getBytes(StandardCharsets.US_ASCII);
  }
}
