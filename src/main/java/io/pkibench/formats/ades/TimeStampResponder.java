package io.pkibench.formats.ades;

import java.io.IOException;

/**
 * Whatever answers an RFC 3161 TimeStampReq: the TSA in this process, or one over HTTP that
 * pkibench did not write.
 */
@FunctionalInterface
public interface TimeStampResponder {
  /**
   * The DER TimeStampResp to a DER TimeStampReq, unchecked: {@link TimeStampCheck} decides whether
   * it answers the request.
   */
  byte[] respond(byte[] requestDer) throws IOException;
}
