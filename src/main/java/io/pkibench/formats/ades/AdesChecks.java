package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;

/** The independent check of each format's result, for callers outside this package (the HTTP client workloads). */
public final class AdesChecks {
  private AdesChecks() {}

  public static void check(TwoPhaseSigner.Format format, byte[] signed, byte[] original, SigningKey key) throws Exception {
    switch (format) {
      case CADES, CADES_T -> CadesVerifier.check(signed, original, key, format.timestamped());
      case PADES, PADES_T -> PadesVerifier.check(signed, key);
      case XADES -> XadesVerifier.check(signed, key);
    }
  }

  /** The document a format's workloads sign by default: random bytes, the sample PDF, or the sample XML message. */
  public static byte[] sampleDocument(TwoPhaseSigner.Format format, int sizeBytes) throws java.io.IOException {
    return switch (format) {
      case CADES, CADES_T -> {
        byte[] content = new byte[sizeBytes];
        new java.util.SplittableRandom(137).nextBytes(content);
        yield content;
      }
      case PADES, PADES_T -> SamplePdf.generate();
      case XADES -> SampleXml.generate(sizeBytes);
    };
  }
}
