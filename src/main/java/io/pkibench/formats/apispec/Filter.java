package io.pkibench.formats.apispec;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * A step of a template's expression after {@code |}: bytes in, bytes out, so that {@code ${document
 * | sha256 | base64}} reads left to right.
 */
public enum Filter {
  BASE64("base64", "the bytes as standard base64 (RFC 4648 §4, padded)"),
  BASE64URL("base64url", "the bytes as base64url without padding (RFC 4648 §5, as JOSE writes it)"),
  UNBASE64("unbase64", "base64 or base64url text (padded or not, line breaks ignored) decoded"),
  HEX("hex", "the bytes as lower-case hexadecimal"),
  UNHEX("unhex", "hexadecimal text decoded"),
  SHA256("sha256", "the SHA-256 digest of the bytes (32 bytes)"),
  SHA384("sha384", "the SHA-384 digest of the bytes (48 bytes)"),
  SHA512("sha512", "the SHA-512 digest of the bytes (64 bytes)");

  /** The name written in a spec. */
  public final String word;

  public final String description;

  Filter(String word, String description) {
    this.word = word;
    this.description = description;
  }

  public static Filter parse(String word) {
    for (Filter f : values()) if (f.word.equals(word)) return f;
    throw new IllegalArgumentException(
        "unknown filter '" + word + "'; use one of " + String.join(", ", words()));
  }

  public static List<String> words() {
    return Arrays.stream(values()).map(f -> f.word).toList();
  }

  /** The filtered bytes; a decoding filter given what it cannot decode throws saying so. */
  public byte[] apply(byte[] in) {
    return switch (this) {
      case BASE64 -> Base64.getEncoder().encode(in);
      case BASE64URL -> Base64.getUrlEncoder().withoutPadding().encode(in);
      case UNBASE64 -> unbase64(in);
      case HEX -> HexFormat.of().formatHex(in).getBytes(StandardCharsets.US_ASCII);
      case UNHEX -> unhex(in);
      case SHA256 -> digest("SHA-256", in);
      case SHA384 -> digest("SHA-384", in);
      case SHA512 -> digest("SHA-512", in);
    };
  }

  private static byte[] unbase64(byte[] in) {
    String text = new String(in, StandardCharsets.ISO_8859_1).replaceAll("[\\s=]", "");
    try {
      if (text.indexOf('-') >= 0 || text.indexOf('_') >= 0)
        return Base64.getUrlDecoder().decode(text);
      return Base64.getDecoder().decode(text); // padding is optional to the JDK's decoder
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unbase64: the value is not base64 (" + in.length + " bytes)");
    }
  }

  private static byte[] unhex(byte[] in) {
    try {
      return HexFormat.of()
          .parseHex(new String(in, StandardCharsets.ISO_8859_1).strip().toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unhex: the value is not hexadecimal (" + in.length + " bytes)");
    }
  }

  private static byte[] digest(String algorithm, byte[] in) {
    try {
      return MessageDigest.getInstance(algorithm).digest(in);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is in every JDK", e);
    }
  }
}
