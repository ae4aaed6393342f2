package io.pkibench.formats.rsfn;

import java.util.List;

/**
 * What unpacking an envelope came to: accepted with its payload, or refused with the C03 code and a
 * message. Never an exception. {@link #payload()} throws on a refused envelope, so a caller cannot
 * use a payload that did not verify by forgetting to look at {@link #error()}.
 */
public record Unpacked(
    ErrorCode error, String message, SecurityHeader header, byte[] plaintext, List<String> notes) {
  public Unpacked {
    notes = List.copyOf(notes);
  }

  static Unpacked accepted(SecurityHeader header, byte[] payload, List<String> notes) {
    return new Unpacked(ErrorCode.OK, "accepted", header, payload, notes);
  }

  static Unpacked refused(
      ErrorCode error, String message, SecurityHeader header, List<String> notes) {
    return new Unpacked(error, message, header, null, notes);
  }

  public boolean ok() {
    return error == ErrorCode.OK;
  }

  /** The verified payload (decompressed when the envelope was compressed). */
  public byte[] payload() {
    if (!ok())
      throw new IllegalStateException(
          "the envelope was refused with C03 " + error.hex() + ": " + message);
    return plaintext;
  }

  /**
   * The header an answer to the sender carries: the received one with C03 set, or, when not even a
   * header could be read, a protocol 3 header that holds only the error code.
   */
  public byte[] answerHeader() {
    if (header != null) return header.withErrorCode(error.code).encode();
    return new SecurityHeader(
            SecurityHeader.LENGTH,
            SecurityHeader.VERSION_3,
            error.code,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            SecurityHeader.noSerial(),
            0,
            SecurityHeader.noSerial(),
            new byte[SecurityHeader.BLOCK],
            new byte[SecurityHeader.BLOCK])
        .encode();
  }

  @Override
  public String toString() {
    return ok()
        ? "accepted (" + plaintext.length + " bytes)"
        : "refused " + error.hex() + ": " + message;
  }
}
