package io.pkibench.keyserver.protocol;

import java.util.HexFormat;
import java.util.Locale;

/**
 * The contract's hash algorithms as the JCA names them, and the DigestInfo that RSASSA-PKCS1-v1_5
 * signs.
 */
public final class Hashes {
  private Hashes() {}

  /** The JCA digest name ({@code SHA-256}), or null for a value the contract does not define. */
  public static String jcaName(HashAlgorithm hash) {
    return switch (hash) {
      case SHA_1 -> "SHA-1";
      case SHA_256 -> "SHA-256";
      case SHA_384 -> "SHA-384";
      case SHA_512 -> "SHA-512";
      default -> null;
    };
  }

  /** The short form in JCA signature names: {@code SHA256} of {@code SHA256withRSA}. */
  public static String signaturePrefix(HashAlgorithm hash) {
    String name = jcaName(hash);
    return name == null ? null : name.replace("-", "");
  }

  /**
   * From a JCA digest name in any of its spellings ({@code SHA-256}, {@code SHA256}); UNRECOGNIZED
   * when not one of ours.
   */
  public static HashAlgorithm fromJca(String name) {
    return switch (name.toUpperCase(Locale.ROOT).replace("-", "")) {
      case "SHA1" -> HashAlgorithm.SHA_1;
      case "SHA256" -> HashAlgorithm.SHA_256;
      case "SHA384" -> HashAlgorithm.SHA_384;
      case "SHA512" -> HashAlgorithm.SHA_512;
      default -> HashAlgorithm.UNRECOGNIZED;
    };
  }

  public static int length(HashAlgorithm hash) {
    return switch (hash) {
      case SHA_1 -> 20;
      case SHA_256 -> 32;
      case SHA_384 -> 48;
      case SHA_512 -> 64;
      default -> -1;
    };
  }

  // DigestInfo's DER up to the digest, per hash (RFC 8017 section 9.2, note 1); parsed once, not
  // per signature
  private static final byte[] SHA_1_INFO =
      HexFormat.of().parseHex("3021300906052b0e03021a05000414");
  private static final byte[] SHA_256_INFO =
      HexFormat.of().parseHex("3031300d060960864801650304020105000420");
  private static final byte[] SHA_384_INFO =
      HexFormat.of().parseHex("3041300d060960864801650304020205000430");
  private static final byte[] SHA_512_INFO =
      HexFormat.of().parseHex("3051300d060960864801650304020305000440");

  /**
   * DER DigestInfo of {@code digest} (RFC 8017 section 9.2, note 1): what NONEwithRSA pads and
   * signs.
   */
  public static byte[] digestInfo(HashAlgorithm hash, byte[] digest) {
    byte[] head =
        switch (hash) {
          case SHA_1 -> SHA_1_INFO;
          case SHA_256 -> SHA_256_INFO;
          case SHA_384 -> SHA_384_INFO;
          case SHA_512 -> SHA_512_INFO;
          default -> throw new IllegalArgumentException("no DigestInfo for " + hash);
        };
    byte[] out = new byte[head.length + digest.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(digest, 0, out, head.length, digest.length);
    return out;
  }
}
