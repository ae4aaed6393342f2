package io.pkibench.formats.rsfn;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The RSFN security protocol 3 header: 588 bytes, big-endian, fields C01–C15 at fixed offsets
 * (docs/studies/rsfn.md). {@link #decode} reads any 588 bytes field by field without judging them;
 * the codec judges. Serials are 32 characters of uppercase hex, left-padded with '0'.
 */
public record SecurityHeader(
    int length,
    int version,
    int errorCode,
    int treatment,
    int reserved,
    int recipientKey,
    int symmetric,
    int senderKey,
    int hash,
    int recipientCa,
    String recipientSerial,
    int senderCa,
    String senderSerial,
    byte[] wrappedKey,
    byte[] signature) {

  public static final int LENGTH = 588;
  public static final int VERSION_3 = 0x03;
  public static final int RSA_1024 = 0x01, RSA_2048 = 0x02;
  public static final int AES_256 = 0x02, TDES_168 = 0x01;
  public static final int SHA_1 = 0x02, SHA_256 = 0x03;
  static final int SERIAL_CHARS = 32, BLOCK = 256;
  static final int C01 = 0,
      C02 = 2,
      C03 = 3,
      C04 = 4,
      C05 = 5,
      C06 = 6,
      C07 = 7,
      C08 = 8,
      C09 = 9,
      C10 = 10,
      C11 = 11,
      C12 = 43,
      C13 = 44,
      C14 = 76,
      C15 = 332;

  public SecurityHeader {
    wrappedKey = wrappedKey.clone();
    signature = signature.clone();
    if (wrappedKey.length != BLOCK || signature.length != BLOCK)
      throw new IllegalArgumentException("C14 and C15 are 256 bytes each");
    if (recipientSerial.length() != SERIAL_CHARS || senderSerial.length() != SERIAL_CHARS)
      throw new IllegalArgumentException("C11 and C13 are 32 characters");
  }

  /** A serial number as C11/C13 carry it. */
  public static String serial(BigInteger serial) {
    String hex = serial.toString(16).toUpperCase(Locale.ROOT);
    if (hex.length() > SERIAL_CHARS)
      throw new IllegalArgumentException(
          "a serial of " + hex.length() + " hex digits does not fit the header's 32");
    return "0".repeat(SERIAL_CHARS - hex.length()) + hex;
  }

  /** 32 '0's: no certificate (the recipient of a message not encrypted). */
  public static String noSerial() {
    return "0".repeat(SERIAL_CHARS);
  }

  public byte[] encode() {
    byte[] h = new byte[LENGTH];
    h[C01] = (byte) (length >>> 8);
    h[C01 + 1] = (byte) length;
    h[C02] = (byte) version;
    h[C03] = (byte) errorCode;
    h[C04] = (byte) treatment;
    h[C05] = (byte) reserved;
    h[C06] = (byte) recipientKey;
    h[C07] = (byte) symmetric;
    h[C08] = (byte) senderKey;
    h[C09] = (byte) hash;
    h[C10] = (byte) recipientCa;
    System.arraycopy(recipientSerial.getBytes(StandardCharsets.US_ASCII), 0, h, C11, SERIAL_CHARS);
    h[C12] = (byte) senderCa;
    System.arraycopy(senderSerial.getBytes(StandardCharsets.US_ASCII), 0, h, C13, SERIAL_CHARS);
    System.arraycopy(wrappedKey, 0, h, C14, BLOCK);
    System.arraycopy(signature, 0, h, C15, BLOCK);
    return h;
  }

  /**
   * The first 588 bytes of {@code envelope}, field by field; the caller checks there are that many.
   */
  public static SecurityHeader decode(byte[] envelope) {
    if (envelope.length < LENGTH)
      throw new IllegalArgumentException("a header is 588 bytes; this has " + envelope.length);
    return new SecurityHeader(
        ((envelope[C01] & 0xFF) << 8) | (envelope[C01 + 1] & 0xFF),
        u(envelope, C02),
        u(envelope, C03),
        u(envelope, C04),
        u(envelope, C05),
        u(envelope, C06),
        u(envelope, C07),
        u(envelope, C08),
        u(envelope, C09),
        u(envelope, C10),
        ascii(envelope, C11),
        u(envelope, C12),
        ascii(envelope, C13),
        Arrays.copyOfRange(envelope, C14, C14 + BLOCK),
        Arrays.copyOfRange(envelope, C15, C15 + BLOCK));
  }

  private static int u(byte[] b, int offset) {
    return b[offset] & 0xFF;
  }

  /** ISO-8859-1 so that any byte decodes to one character and a tampered serial stays 32 long. */
  private static String ascii(byte[] b, int offset) {
    return new String(b, offset, SERIAL_CHARS, StandardCharsets.ISO_8859_1);
  }

  public SecurityHeader withErrorCode(int code) {
    return new SecurityHeader(
        length,
        version,
        code,
        treatment,
        reserved,
        recipientKey,
        symmetric,
        senderKey,
        hash,
        recipientCa,
        recipientSerial,
        senderCa,
        senderSerial,
        wrappedKey,
        signature);
  }

  /** One line per field, for {@code pkibench rsfn inspect} and {@code unpack}. */
  public List<String> describe() {
    HexFormat hex = HexFormat.of();
    Treatment t = Treatment.of(treatment);
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            "C01 header length      %d%s", length, length == LENGTH ? "" : "  (protocol 3: 588)"));
    lines.add(
        String.format(
            "C02 version            0x%02X%s",
            version, version == VERSION_3 ? " (protocol 3)" : version == 0 ? " (clear)" : ""));
    lines.add(
        String.format(
            "C03 error code         0x%02X (%s)", errorCode, ErrorCode.of(errorCode).meaning));
    lines.add(
        String.format(
            "C04 special treatment  %d (%s)", treatment, t == null ? "unknown" : t.meaning));
    lines.add(String.format("C05 reserved           %d", reserved));
    lines.add(
        String.format("C06 recipient key      0x%02X (%s)", recipientKey, keyName(recipientKey)));
    lines.add(
        String.format(
            "C07 symmetric          0x%02X (%s)",
            symmetric,
            symmetric == AES_256
                ? "AES-256-GCM"
                : symmetric == TDES_168 ? "3DES-168" : symmetric == 0 ? "none" : "unknown"));
    lines.add(String.format("C08 sender key         0x%02X (%s)", senderKey, keyName(senderKey)));
    lines.add(
        String.format(
            "C09 hash               0x%02X (%s)",
            hash, hash == SHA_256 ? "SHA-256" : hash == SHA_1 ? "SHA-1" : "unknown"));
    lines.add(String.format("C10 recipient CA       0x%02X%s", recipientCa, caName(recipientCa)));
    lines.add("C11 recipient serial   " + printable(recipientSerial));
    lines.add(String.format("C12 sender CA          0x%02X%s", senderCa, caName(senderCa)));
    lines.add("C13 sender serial      " + printable(senderSerial));
    lines.add(
        "C14 wrapped key        "
            + (isZero(wrappedKey)
                ? "zeros (not encrypted)"
                : hex.formatHex(wrappedKey, 0, 16) + "… (256 bytes)"));
    lines.add("C15 signature          " + hex.formatHex(signature, 0, 16) + "… (256 bytes)");
    return lines;
  }

  private static String keyName(int code) {
    return switch (code) {
      case RSA_1024 -> "RSA-1024";
      case RSA_2048 -> "RSA-2048";
      case 0 -> "none";
      default -> "unknown";
    };
  }

  private static String caName(int code) {
    String name = CaCodes.publishedName(code);
    return name == null ? "" : " (" + name + ")";
  }

  /**
   * {@code s} as it can be shown on a terminal: the bytes of an envelope from outside, escape
   * sequences included, never raw.
   */
  public static String printable(String s) {
    return s.chars().allMatch(c -> c >= 0x20 && c < 0x7F)
        ? s
        : HexFormat.of().formatHex(s.getBytes(StandardCharsets.ISO_8859_1)) + " (not text)";
  }

  static boolean isZero(byte[] b) {
    for (byte x : b) if (x != 0) return false;
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecurityHeader other && Arrays.equals(encode(), other.encode());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(encode());
  }

  @Override
  public String toString() {
    return String.join("\n", describe());
  }
}
