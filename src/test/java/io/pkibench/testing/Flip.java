package io.pkibench.testing;

import java.util.Arrays;
import org.bouncycastle.cert.ocsp.BasicOCSPResp;
import org.bouncycastle.cert.ocsp.OCSPResp;
import org.bouncycastle.tsp.TimeStampResponse;

/**
 * One bit of a signature flipped where it sits inside a DER answer, so that only the signature is
 * wrong.
 */
public final class Flip {
  private Flip() {}

  /** {@code timeStampResp} with a bit of its token's signature value flipped. */
  public static byte[] inTokenSignature(byte[] timeStampResp) throws Exception {
    byte[] signature =
        new TimeStampResponse(timeStampResp)
            .getTimeStampToken()
            .toCMSSignedData()
            .getSignerInfos()
            .getSigners()
            .iterator()
            .next()
            .getSignature();
    return inside(timeStampResp, signature);
  }

  /**
   * {@code ocspResponse} (a successful basic response) with a bit of the responder's signature
   * flipped.
   */
  public static byte[] inOcspSignature(byte[] ocspResponse) throws Exception {
    return inside(
        ocspResponse,
        ((BasicOCSPResp) new OCSPResp(ocspResponse).getResponseObject()).getSignature());
  }

  /**
   * {@code der} with the middle byte of the first occurrence of {@code part} changed in its lowest
   * bit.
   */
  public static byte[] inside(byte[] der, byte[] part) {
    int at = indexOf(der, part);
    if (at < 0) throw new AssertionError("the signature is not in the answer's encoding");
    byte[] out = Arrays.copyOf(der, der.length);
    out[at + part.length / 2] ^= 0x01;
    return out;
  }

  /** Where {@code needle} starts in {@code haystack}, or -1. */
  public static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }
}
