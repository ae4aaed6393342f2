package io.pkibench.workload.acme;

import io.pkibench.text.OutsideText;

/**
 * A CA's refusal (RFC 8555 §6.7: an {@code application/problem+json} answer, RFC 7807): its type
 * and detail, both escaped, since they come from the CA.
 */
final class AcmeProblem extends Exception {
  static final String PREFIX = "urn:ietf:params:acme:error:";

  private final String type;
  private final int status;

  AcmeProblem(String type, String detail, int status) {
    super(
        "the CA refused (HTTP "
            + status
            + "): "
            + OutsideText.forTerminal(shortType(type), 100)
            + (detail.isEmpty() ? "" : ": " + OutsideText.forTerminal(detail, 300)));
    this.type = type;
    this.status = status;
  }

  /** The problem's type URI, as the CA sent it: compare, never print. */
  String type() {
    return type;
  }

  int status() {
    return status;
  }

  boolean is(String acmeError) {
    return (PREFIX + acmeError).equals(type);
  }

  private static String shortType(String type) {
    return type.startsWith(PREFIX) ? type.substring(PREFIX.length()) : type;
  }
}
