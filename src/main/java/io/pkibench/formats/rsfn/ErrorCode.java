package io.pkibench.formats.rsfn;

/**
 * The security header's C03: what an unpacking found wrong, as the RSFN security manual numbers it
 * (0x00 accepted, 0x01–0x14 security errors, 0xFF anything else). The descriptions are ours.
 */
public enum ErrorCode {
  OK(0x00, "accepted"),
  HEADER_LENGTH(
      0x01, "the header's length (C01) is not 588, or the envelope is shorter than a header"),
  VERSION(0x02, "the protocol version (C02) is not 3"),
  RECIPIENT_KEY_ALGORITHM(
      0x03,
      "the recipient's key algorithm (C06) is unknown or differs from the recipient's certificate"),
  SYMMETRIC_ALGORITHM(0x04, "the symmetric algorithm (C07) is unknown"),
  SENDER_KEY_ALGORITHM(
      0x05, "the sender's key algorithm (C08) is unknown or differs from the sender's certificate"),
  HASH_ALGORITHM(0x06, "the hash algorithm (C09) is unknown"),
  RECIPIENT_CA(
      0x07, "the recipient certificate's CA code (C10) does not match the recipient's certificate"),
  RECIPIENT_SERIAL(
      0x08, "the recipient certificate's serial (C11) does not match the recipient's certificate"),
  SENDER_CA(0x09, "the sender certificate's CA code (C12) does not match the sender's certificate"),
  SENDER_SERIAL(
      0x0A, "the sender certificate's serial (C13) does not match the sender's certificate"),
  SIGNATURE(0x0B, "the signature (C15) does not verify over the plaintext"),
  RECIPIENT_NOT_OWNER(0x0C, "the recipient's certificate is not the unpacking party's own"),
  KEY_EXTRACTION(0x0D, "the symmetric key (C14) cannot be extracted with the recipient's key"),
  SYMMETRIC(0x0E, "the ciphertext does not decrypt (AES-256-GCM tag mismatch or truncated)"),
  BLOCK_LENGTH(0x0F, "the ciphertext's length does not fit the symmetric algorithm"),
  NOT_YET_VALID(0x10, "a certificate is not valid yet"),
  EXPIRED_OR_REVOKED(0x11, "a certificate has expired or is revoked"),
  SOFTWARE(0x12, "the payload cannot be processed (e.g. its compression is damaged or too large)"),
  SPECIAL_TREATMENT(0x13, "the special treatment (C04) is unknown or reserved (C05) is not zero"),
  PAYLOAD_LENGTH(0x14, "the payload is empty or too large"),
  OTHER(0xFF, "another error");

  public final int code;
  public final String meaning;

  ErrorCode(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  public static ErrorCode of(int code) {
    for (ErrorCode c : values()) if (c.code == code) return c;
    return OTHER;
  }

  /** As a header shows it, e.g. {@code 0x0B}. */
  public String hex() {
    return String.format("0x%02X", code);
  }
}
