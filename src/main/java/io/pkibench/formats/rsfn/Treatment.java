package io.pkibench.formats.rsfn;

/**
 * The header's C04, special treatment: whether the payload is encrypted and compressed, and what it
 * is.
 */
public enum Treatment {
  NORMAL(0, true, false, "a message, encrypted"),
  NOT_ACTIVATED(1, true, false, "a message under a certificate not yet activated, encrypted"),
  BROADCAST(2, false, false, "a broadcast message, not encrypted"),
  CLEAR(3, false, false, "a message, not encrypted"),
  FILE(4, true, false, "a file, encrypted, not compressed"),
  FILE_CLEAR(6, false, false, "a file, neither compressed nor encrypted"),
  FILE_COMPRESSED(8, true, true, "a file, compressed (gzip) and encrypted"),
  FILE_COMPRESSED_CLEAR(10, false, true, "a file, compressed (gzip), not encrypted");

  public final int code;
  public final boolean encrypted;
  public final boolean compressed;
  public final String meaning;

  Treatment(int code, boolean encrypted, boolean compressed, String meaning) {
    this.code = code;
    this.encrypted = encrypted;
    this.compressed = compressed;
    this.meaning = meaning;
  }

  /** Null when {@code code} is not a treatment of protocol 3. */
  public static Treatment of(int code) {
    for (Treatment t : values()) if (t.code == code) return t;
    return null;
  }

  /**
   * What {@code --gzip} and {@code --no-encrypt} ask for: a message unless compressed (compression
   * is for files).
   */
  public static Treatment of(boolean encrypt, boolean gzip) {
    if (gzip) return encrypt ? FILE_COMPRESSED : FILE_COMPRESSED_CLEAR;
    return encrypt ? NORMAL : CLEAR;
  }
}
