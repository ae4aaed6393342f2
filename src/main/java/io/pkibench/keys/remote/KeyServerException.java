package io.pkibench.keys.remote;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.security.SignatureException;

/**
 * A key-server call that did not return a result. {@link #refused()} tells the client's fault (an
 * unknown or ungranted alias, a scheme the key cannot do, an oversized request) from the node's
 * (down, too slow, failed), so a run counts them apart.
 */
public final class KeyServerException extends SignatureException {
  private final boolean refused;
  private final Status.Code code;

  KeyServerException(NodeAddress node, StatusRuntimeException e) {
    super(message(node, e.getStatus()), e);
    this.code = e.getStatus().getCode();
    this.refused = isRefusal(code);
  }

  KeyServerException(String message) {
    super(message);
    this.code = Status.Code.UNAVAILABLE;
    this.refused = false;
  }

  public boolean refused() {
    return refused;
  }

  public Status.Code code() {
    return code;
  }

  static boolean isRefusal(Status.Code code) {
    return switch (code) {
      case NOT_FOUND,
          PERMISSION_DENIED,
          INVALID_ARGUMENT,
          RESOURCE_EXHAUSTED,
          FAILED_PRECONDITION,
          OUT_OF_RANGE,
          UNAUTHENTICATED ->
          true;
      default -> false;
    };
  }

  private static String message(NodeAddress node, Status status) {
    String what =
        status.getDescription() == null
            ? status.getCode().toString()
            : status.getCode() + ": " + status.getDescription();
    return (isRefusal(status.getCode()) ? "refused by key server " : "key server ")
        + node
        + (isRefusal(status.getCode()) ? ": " : " failed: ")
        + what;
  }
}
