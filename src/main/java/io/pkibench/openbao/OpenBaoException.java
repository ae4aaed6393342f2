package io.pkibench.openbao;

import java.io.IOException;

/**
 * OpenBao refused or did not answer a request: the path, the HTTP status (0 when no node answered)
 * and OpenBao's own errors. Never carries the token.
 */
public final class OpenBaoException extends IOException {
  private final int status;

  public OpenBaoException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The HTTP status OpenBao answered with; 0 when no node answered. */
  public int status() {
    return status;
  }
}
