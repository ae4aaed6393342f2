package io.pkibench.workload.ades;

import io.pkibench.formats.ades.PadesVerifier;
import io.pkibench.formats.ades.SamplePdf;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.pki.InputFiles;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;

/**
 * {@code pades} (PAdES-B-B) and {@code pades-t} (PAdES-B-T), two-phase through DSS and PDFBox, on
 * the ~137 KB {@link SamplePdf} unless {@code -p file=} names a PDF. With {@code --verify}, PDFBox
 * finds the byte range, which must cover the PDF sent plus the signature's own update and nothing
 * after it, and BouncyCastle verifies the CMS over it, independently of DSS; at B-T also the
 * signature time-stamp inside the CMS (signature, TSA chain to the test PKI's root, imprint).
 */
public final class PadesWorkload {
  private PadesWorkload() {}

  public static final class Factory extends LevelPairFactory {
    public Factory(boolean timestamped) {
      super(
          "pades",
          timestamped,
          "PAdES-B-B (DSS + PDFBox): getDataToSign, sign with the key source, signDocument",
          "PAdES-B-T (DSS + PDFBox): signed PDF with an RFC 3161 signature time-stamp");
    }

    @Override
    public List<ParamSpec> params() {
      return withTsa(
          List.of(
              ParamSpec.free("file", "", "a PDF to sign instead of the generated ~137 KB sample"),
              Signers.ALG,
              Signers.CERTS));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      byte[] pdf =
          params.get("file").isEmpty()
              ? SamplePdf.generate()
              : readPdf(Path.of(params.get("file")));
      return new AdesWorkload(
          timestamped() ? TwoPhaseSigner.Format.PADES_T : TwoPhaseSigner.Format.PADES,
          Signers.of(context, params),
          pdf,
          "document.pdf",
          null,
          timestamped() ? Signers.tsa(context, params) : null,
          timestamped() ? Signers.tsaCheck(params) : null,
          checker(context, params, timestamped()),
          context.clock());
    }

    private static AdesWorkload.Checker checker(
        WorkloadContext context, Params params, boolean timestamped) throws IOException {
      if (!context.verify()) return null;
      if (!timestamped)
        return (signed, original, key) -> PadesVerifier.check(signed, original, key);
      X509Certificate anchor = Signers.tsaTrustAnchor(context, params);
      return (signed, original, key) ->
          PadesVerifier.checkTimestamped(signed, original, key, anchor);
    }
  }

  /**
   * Reads and parses the user's PDF once, so that a corrupt or missing file fails before any worker
   * starts.
   */
  static byte[] readPdf(Path file) throws IOException {
    if (!Files.isReadable(file))
      throw new IOException("-p file=" + file + ": no such readable file");
    byte[] bytes = InputFiles.read(file, 256L << 20, "a PDF to sign");
    try (PDDocument ignored = Loader.loadPDF(bytes)) {
      return bytes;
    } catch (IOException e) {
      throw new IOException(
          "-p file="
              + file
              + " is not a PDF PDFBox can read ("
              + e.getMessage()
              + "); give an unencrypted, well-formed PDF",
          e);
    }
  }
}
