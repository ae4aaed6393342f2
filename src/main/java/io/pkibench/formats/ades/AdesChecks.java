package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.SplittableRandom;

/**
 * The independent check of each format's result, for callers outside this package (the HTTP client
 * workloads).
 */
public final class AdesChecks {
  private AdesChecks() {}

  /**
   * Throws unless {@code signed} is a valid signature by {@code key} over {@code original}, the
   * document sent to be signed (for PAdES the PDF sent, for XAdES the XML message sent). {@code
   * tsaTrustAnchor}: the root the signature time-stamp's TSA must chain to (used by the B-T formats
   * only).
   */
  public static void check(
      TwoPhaseSigner.Format format,
      byte[] signed,
      byte[] original,
      SigningKey key,
      X509Certificate tsaTrustAnchor)
      throws Exception {
    switch (format) {
      case CADES -> CadesVerifier.check(signed, original, key);
      case CADES_T -> CadesVerifier.checkTimestamped(signed, original, key, tsaTrustAnchor);
      case PADES -> PadesVerifier.check(signed, original, key);
      case PADES_T -> PadesVerifier.checkTimestamped(signed, original, key, tsaTrustAnchor);
      case XADES -> XadesVerifier.check(signed, original, key);
    }
  }

  /**
   * The document a format's workloads sign by default: random bytes, the sample PDF, or the sample
   * XML message.
   */
  public static byte[] sampleDocument(TwoPhaseSigner.Format format, int sizeBytes)
      throws IOException {
    return switch (format) {
      case CADES, CADES_T -> {
        byte[] content = new byte[sizeBytes];
        new SplittableRandom(137).nextBytes(content);
        yield content;
      }
      case PADES, PADES_T -> SamplePdf.generate();
      case XADES -> SampleXml.generate(sizeBytes);
    };
  }
}
