package io.pkibench.workload.ades;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.PdfsigVerdict;
import io.pkibench.formats.ades.SamplePdf;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.SigningKey;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PAdES made through DSS with our keys, checked by PDFBox + BouncyCastle in the workload and by
 * poppler's pdfsig here.
 */
class PadesWorkloadTest {
  @TempDir static Path tmp;
  static TestKeys fixture;

  @BeforeAll
  static void setUp() {
    fixture = TestKeys.in(tmp);
  }

  static Workload workload(boolean timestamped, Map<String, String> params) throws Exception {
    return fixture.workload(new PadesWorkload.Factory(timestamped), params);
  }

  @Test
  void samplePdf_isAbout137KbAndTheSameEveryTime() throws Exception {
    byte[] pdf = SamplePdf.generate();
    assertEquals(137 * 1024, pdf.length, 137 * 1024 * 0.05, "size " + pdf.length);
    assertArrayEquals(pdf, SamplePdf.generate());
  }

  @Test
  void run_bothLevels_everyOperationSucceeds() throws Exception {
    for (boolean t : new boolean[] {false, true}) {
      try (Workload w = workload(t, Map.of("certs", "2"))) {
        MeasuredRun.of(t ? "pades-t" : "pades", w).assertEverySucceeded();
      }
    }
  }

  @Test
  void run_signatureValueFlippedByTheProvider_everyOperationCountedFailed() throws Exception {
    var factory = new PadesWorkload.Factory(false);
    try (Workload w =
        factory.create(
            new WorkloadContext(
                FaultyKeys.flippingEveryOutput(fixture.keys), true, () -> fixture.pki),
            Params.resolve("pades", factory.params(), Map.of()))) {
      MeasuredRun.of("pades with flipped signatures", w, java.time.Duration.ofMillis(600))
          .assertEveryFailedWith("the PAdES signature does not verify with BouncyCastle");
    }
  }

  /**
   * The TSA's key and certificate are another PKI's: DSS embeds the token, our B-T check refuses
   * its chain, the run counts each.
   */
  @Test
  void run_padesTWithTheTsaOfAnotherPki_everyOperationCountedFailed() throws Exception {
    var keys =
        FaultyKeys.withKeyFrom(fixture.keys, "tsa", TestKeys.in(tmp.resolve("elsewhere")).keys);
    var factory = new PadesWorkload.Factory(true);
    try (Workload w =
        factory.create(
            new WorkloadContext(keys, true, () -> fixture.pki),
            Params.resolve("pades-t", factory.params(), Map.of()))) {
      MeasuredRun.of("pades-t stamped by another PKI's TSA", w, java.time.Duration.ofMillis(600))
          .assertEveryFailedWith(
              "the PAdES signature time-stamp's TSA certificate does not chain to the trust anchor");
    }
  }

  /**
   * The TSA signs through a provider that flips a bit: DSS embeds the token unchecked, ours refuses
   * its signature.
   */
  @Test
  void run_padesTWithTheTsaSignatureFlipped_everyOperationCountedFailed() throws Exception {
    var keys = FaultyKeys.flippingOutputsOf(fixture.keys, "tsa");
    var factory = new PadesWorkload.Factory(true);
    try (Workload w =
        factory.create(
            new WorkloadContext(keys, true, () -> fixture.pki),
            Params.resolve("pades-t", factory.params(), Map.of()))) {
      MeasuredRun.of("pades-t with flipped token signatures", w, java.time.Duration.ofMillis(600))
          .assertEveryFailedWith(
              "the PAdES signature time-stamp does not verify with its TSA certificate");
    }
  }

  @Test
  void check_flippedSignatureValueChangedPageOrAnotherCasCertificate_rejected() throws Exception {
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    TwoPhaseSigner signer = new TwoPhaseSigner(null, InstantSource.system());
    byte[] signed =
        signer.sign(
            TwoPhaseSigner.Format.PADES,
            new InMemoryDocument(SamplePdf.generate(), "sample.pdf"),
            key,
            null);
    AdesChecks.check(
        TwoPhaseSigner.Format.PADES,
        signed,
        SamplePdf.generate(),
        key,
        fixture.pki.certificate("root-ca")); // the untouched signature passes

    SigningKey flipping = FaultyKeys.flippingEveryOutput(fixture.keys).key("signer-rsa2048-1");
    byte[] flippedValue =
        signer.sign(
            TwoPhaseSigner.Format.PADES,
            new InMemoryDocument(SamplePdf.generate(), "sample.pdf"),
            flipping,
            null);
    var e =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.PADES,
                    flippedValue,
                    SamplePdf.generate(),
                    key,
                    fixture.pki.certificate("root-ca")));
    assertEquals("the PAdES signature does not verify with BouncyCastle", e.getMessage());

    byte[] tampered = signed.clone();
    tampered[tampered.length / 3] ^= 0x01; // inside the first byte range: an image stream
    var content =
        assertThrows(
            Exception.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.PADES,
                    tampered,
                    SamplePdf.generate(),
                    key,
                    fixture.pki.certificate("root-ca")));
    assertTrue(
        content.getMessage().contains("message-digest attribute value does not match"),
        content.toString());

    SigningKey anotherCas =
        fixture.keys.key(
            "signer-rsa2048-2"); // intermediate-b's; signer-rsa2048-1 is intermediate-a's
    var foreign =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.PADES,
                    signed,
                    SamplePdf.generate(),
                    anotherCas,
                    fixture.pki.certificate("root-ca")));
    assertEquals("the PAdES signature does not verify with BouncyCastle", foreign.getMessage());
  }

  @Test
  void check_updateAppendedAfterSigning_refusedNamingTheBytesNotCovered() throws Exception {
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    byte[] sent = SamplePdf.generate();
    byte[] signed =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(TwoPhaseSigner.Format.PADES, new InMemoryDocument(sent, "sample.pdf"), key, null);
    AdesChecks.check(TwoPhaseSigner.Format.PADES, signed, sent, key, null);
    String goodReport = pdfsig(Files.write(tmp.resolve("signed-whole.pdf"), signed));
    PdfsigVerdict.check(goodReport, "pkibench signer-rsa2048-1");

    byte[] updated = rotatedInAnIncrementalUpdate(signed);
    assertEquals(signed.length, Arrays.mismatch(signed, updated), "an update appended, no more");
    var e =
        assertThrows(
            SignatureException.class,
            () -> AdesChecks.check(TwoPhaseSigner.Format.PADES, updated, sent, key, null));
    assertEquals(
        "the PDF signature's byte range ends at byte "
            + signed.length
            + " of "
            + updated.length
            + ": bytes "
            + signed.length
            + " to "
            + updated.length
            + " are not covered (an update appended after signing)",
        e.getMessage());

    // pdfsig, independently, still says the signature is valid but not over the whole file
    String partial = pdfsig(Files.write(tmp.resolve("signed-then-updated.pdf"), updated));
    assertTrue(partial.contains("Signature is Valid."), partial);
    var byPdfsig =
        assertThrows(
            SignatureException.class,
            () -> PdfsigVerdict.check(partial, "pkibench signer-rsa2048-1"));
    assertTrue(
        byPdfsig.getMessage().contains("(pdfsig: 'Not total document signed')"),
        byPdfsig.getMessage());
  }

  @Test
  void pdfsigVerdict_realReportWithTheWholeDocumentLineOrSignerChanged_refused() throws Exception {
    byte[] signed =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.PADES,
                new InMemoryDocument(SamplePdf.generate(), "sample.pdf"),
                fixture.keys.key("signer-rsa2048-1"),
                null);
    String report = pdfsig(Files.write(tmp.resolve("verdict.pdf"), signed));
    assertTrue(report.contains("- Total document signed"), report);
    PdfsigVerdict.check(report, "pkibench signer-rsa2048-1");

    String notWhole = report.replace("- Total document signed", "- Not total document signed");
    var e =
        assertThrows(
            SignatureException.class,
            () -> PdfsigVerdict.check(notWhole, "pkibench signer-rsa2048-1"));
    assertEquals(
        "pdfsig does not vouch for the PDF: no '- Total document signed' line: the signature's"
            + " byte range is not the whole file (pdfsig: 'Not total document signed')",
        e.getMessage());
    String lineGone = report.replace("- Total document signed", "");
    assertThrows(
        SignatureException.class, () -> PdfsigVerdict.check(lineGone, "pkibench signer-rsa2048-1"));
    var other =
        assertThrows(
            SignatureException.class,
            () -> PdfsigVerdict.check(report, "pkibench signer-rsa2048-2"));
    assertEquals(
        "pdfsig does not vouch for the PDF: signed by 'pkibench signer-rsa2048-1', expected"
            + " 'pkibench signer-rsa2048-2'",
        other.getMessage());
  }

  @Test
  void check_signedRevisionIsNotThePdfSent_refused() throws Exception {
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    byte[] other;
    try (PDDocument doc = new PDDocument()) {
      doc.addPage(new PDPage());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      doc.save(out);
      other = out.toByteArray();
    }
    byte[] signedOther =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(TwoPhaseSigner.Format.PADES, new InMemoryDocument(other, "other.pdf"), key, null);
    AdesChecks.check(TwoPhaseSigner.Format.PADES, signedOther, other, key, null);
    byte[] sent = SamplePdf.generate();
    var e =
        assertThrows(
            SignatureException.class,
            () -> AdesChecks.check(TwoPhaseSigner.Format.PADES, signedOther, sent, key, null));
    assertTrue(
        e.getMessage()
            .matches(
                "the signed revision is not the PDF sent: it differs from it at byte \\d+ of the "
                    + sent.length
                    + " sent"),
        e.getMessage());
  }

  @Test
  void check_updateSlippedInBetweenThePdfSentAndTheSignature_refused() throws Exception {
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    byte[] sent = SamplePdf.generate();
    byte[] turned = rotatedInAnIncrementalUpdate(sent);
    assertEquals(sent.length, Arrays.mismatch(sent, turned), "an update appended to the PDF sent");
    byte[] signedTurned =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(TwoPhaseSigner.Format.PADES, new InMemoryDocument(turned, "t.pdf"), key, null);
    AdesChecks.check(TwoPhaseSigner.Format.PADES, signedTurned, turned, key, null);
    var e =
        assertThrows(
            SignatureException.class,
            () -> AdesChecks.check(TwoPhaseSigner.Format.PADES, signedTurned, sent, key, null));
    assertEquals(
        "the signed revision is not the PDF sent plus the signature's own update: 2 updates follow"
            + " the "
            + sent.length
            + " bytes sent (2 '%%EOF' markers), the signature's own is the only one allowed",
        e.getMessage());
  }

  /** The signed PDF with its first page turned, saved by PDFBox as an incremental update. */
  static byte[] rotatedInAnIncrementalUpdate(byte[] signedPdf) throws Exception {
    try (PDDocument doc = Loader.loadPDF(signedPdf)) {
      PDPage page = doc.getPage(0);
      page.setRotation(90);
      page.getCOSObject().setNeedToBeUpdated(true);
      doc.getPages().getCOSObject().setNeedToBeUpdated(true);
      doc.getDocumentCatalog().getCOSObject().setNeedToBeUpdated(true);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      doc.saveIncremental(out);
      return out.toByteArray();
    }
  }

  @Test
  void signedPdf_pdfsigSaysValidAndATamperedOneIsNot() throws Exception {
    byte[] signed =
        new TwoPhaseSigner(
                new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
                InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.PADES_T,
                new InMemoryDocument(SamplePdf.generate(), "sample.pdf"),
                fixture.keys.key("signer-rsa2048-1"),
                null);
    Path file = Files.write(tmp.resolve("pades-t.pdf"), signed);
    String report = pdfsig(file);
    assertTrue(report.contains("Signature Validation: Signature is Valid."), report);
    assertTrue(report.contains("pkibench signer-rsa2048-1"), report);

    byte[] tampered = signed.clone();
    tampered[tampered.length / 3] ^= 0x01; // inside the first byte range: an image stream
    String bad = pdfsig(Files.write(tmp.resolve("tampered.pdf"), tampered));
    assertTrue(
        !bad.contains("Signature is Valid."), "one changed byte must break the signature:\n" + bad);
  }

  @Test
  void create_corruptOrMissingFile_failsNamingTheParameter() throws Exception {
    Path corrupt =
        Files.write(tmp.resolve("corrupt.pdf"), "%PDF-1.7\nthis is not really a pdf".getBytes());
    var e =
        assertThrows(
            java.io.IOException.class, () -> workload(false, Map.of("file", corrupt.toString())));
    assertTrue(
        e.getMessage().contains("-p file=") && e.getMessage().contains("not a PDF"),
        e.getMessage());
    e =
        assertThrows(
            java.io.IOException.class,
            () -> workload(false, Map.of("file", tmp.resolve("missing.pdf").toString())));
    assertTrue(e.getMessage().contains("no such readable file"), e.getMessage());
  }

  static String pdfsig(Path pdf) throws Exception {
    Process p =
        new ProcessBuilder(List.of("pdfsig", pdf.toString())).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    return out;
  }
}
