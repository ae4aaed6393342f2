package io.pkibench.server.signer;

/**
 * A request the signing service refuses: HTTP status, a stable error code and a message that says
 * what was wrong. Its own file, so that the request readers need not reach back into the server.
 */
final class Refusal extends Exception {
  final int status;
  final String code;

  /** For a 503: when to try again ({@code Retry-After}, seconds); 0 for none. */
  final long retryAfterSeconds;

  Refusal(int status, String code, String message) {
    this(status, code, message, 0);
  }

  Refusal(int status, String code, String message, long retryAfterSeconds) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
