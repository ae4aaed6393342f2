package io.pkibench.workload.ades;

import eu.europa.esig.dss.enumerations.DigestAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureLevel;
import eu.europa.esig.dss.model.DSSDocument;
import eu.europa.esig.dss.model.InMemoryDocument;
import eu.europa.esig.dss.model.SignatureValue;
import eu.europa.esig.dss.model.ToBeSigned;
import eu.europa.esig.dss.model.x509.CertificateToken;
import eu.europa.esig.dss.pades.PAdESSignatureParameters;
import eu.europa.esig.dss.pades.signature.PAdESService;
import eu.europa.esig.dss.pdf.pdfbox.PdfBoxNativeObjectFactory;
import eu.europa.esig.dss.spi.validation.CommonCertificateVerifier;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.Operation;
import io.pkibench.workload.ParamSpec;
import io.pkibench.workload.Params;
import io.pkibench.workload.Workload;
import io.pkibench.workload.WorkloadContext;
import io.pkibench.workload.WorkloadFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.security.SignatureException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.interactive.digitalsignature.PDSignature;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;

/**
 * A PAdES baseline signature, two-phase as signing services make it: DSS prepares the PDF's
 * signature dictionary and byte range and returns what to sign, the key source's provider signs,
 * DSS embeds the CMS ({@code pades-t}: with an RFC 3161 signature time-stamp from the in-process
 * TSA). The document is the ~137 KB {@link SamplePdf} unless {@code -p file=} names one. With
 * {@code --verify}, PDFBox and BouncyCastle check the byte range and the CMS independently of DSS.
 */
public final class PadesWorkload implements Workload {
  private final List<SigningKey> signers;
  private final SignatureLevel level;
  private final byte[] pdf;
  private final TimeStampAuthority tsa;
  private final boolean verify;

  private PadesWorkload(List<SigningKey> signers, SignatureLevel level, byte[] pdf, TimeStampAuthority tsa, boolean verify) {
    this.signers = signers;
    this.level = level;
    this.pdf = pdf;
    this.tsa = tsa;
    this.verify = verify;
  }

  /** {@code pades} (PAdES-B-B) or {@code pades-t} (PAdES-B-T). */
  public static final class Factory implements WorkloadFactory {
    private final boolean timestamped;

    public Factory(boolean timestamped) {
      this.timestamped = timestamped;
    }

    @Override
    public String name() {
      return timestamped ? "pades-t" : "pades";
    }

    @Override
    public String description() {
      return timestamped ? "PAdES-B-T (DSS + PDFBox): signed PDF with an RFC 3161 signature time-stamp"
          : "PAdES-B-B (DSS + PDFBox): getDataToSign, sign with the key source, signDocument";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free("file", "", "a PDF to sign instead of the generated ~137 KB sample"),
          ParamSpec.choice("alg", "rsa2048", "signer key type", "rsa2048", "ecdsa-p256"),
          ParamSpec.choice("certs", "1", "signer certificates used in turn (from both intermediates: different CRLs)", "1", "2", "3", "4"));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      byte[] pdf = params.get("file").isEmpty() ? SamplePdf.generate() : readPdf(Path.of(params.get("file")));
      KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
      List<SigningKey> signers = new ArrayList<>();
      for (int i = 1; i <= Integer.parseInt(params.get("certs")); i++) signers.add(context.keys().key(Entity.signerAlias(alg, i)));
      TimeStampAuthority tsa = timestamped ? new TimeStampAuthority(context.keys().key("tsa"), InstantSource.system()) : null;
      return new PadesWorkload(signers, timestamped ? SignatureLevel.PAdES_BASELINE_T : SignatureLevel.PAdES_BASELINE_B, pdf, tsa,
          context.verify());
    }
  }

  /** Reads and parses the user's PDF once, so that a corrupt or missing file fails before any worker starts. */
  static byte[] readPdf(Path file) throws IOException {
    if (!Files.isReadable(file)) throw new IOException("-p file=" + file + ": no such readable file");
    byte[] bytes = Files.readAllBytes(file);
    try (PDDocument ignored = Loader.loadPDF(bytes)) {
      return bytes;
    } catch (IOException e) {
      throw new IOException("-p file=" + file + " is not a PDF PDFBox can read (" + e.getMessage() + "); give an unencrypted, well-formed PDF", e);
    }
  }

  public static PAdESService newService(TimeStampAuthority tsa) {
    PAdESService service = new PAdESService(new CommonCertificateVerifier());
    service.setPdfObjFactory(new PdfBoxNativeObjectFactory());
    if (tsa != null) service.setTspSource(new InProcessTspSource(tsa));
    return service;
  }

  /** One signed PDF through DSS: what saved samples and the tests check. */
  public byte[] signOnce(PAdESService service, DSSDocument document, SigningKey key) throws Exception {
    PAdESSignatureParameters parameters = new PAdESSignatureParameters();
    parameters.setSignatureLevel(level);
    parameters.setDigestAlgorithm(DigestAlgorithm.SHA256);
    parameters.setSigningCertificate(new CertificateToken(key.certificate()));
    List<CertificateToken> chain = new ArrayList<>();
    for (var c : key.chain()) chain.add(new CertificateToken(c));
    parameters.setCertificateChain(chain);
    parameters.bLevel().setSigningDate(new Date());
    ToBeSigned toBeSigned = service.getDataToSign(document, parameters);
    SignatureAlgorithm algorithm = key.privateKey().getAlgorithm().equals("EC") ? SignatureAlgorithm.ECDSA_SHA256 : SignatureAlgorithm.RSA_SHA256;
    Signature signer = Signature.getInstance(algorithm.getJCEId(), key.provider());
    signer.initSign(key.privateKey());
    signer.update(toBeSigned.getBytes());
    DSSDocument signed = service.signDocument(document, parameters, new SignatureValue(algorithm, signer.sign()));
    try (InputStream in = signed.openStream()) {
      return in.readAllBytes();
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    DSSDocument document = new InMemoryDocument(pdf, "document.pdf");
    PAdESService service = newService(tsa);
    int[] turn = {worker};
    return () -> {
      SigningKey key = signers.get(turn[0]++ % signers.size());
      byte[] signed = signOnce(service, document, key);
      if (verify) check(signed, key);
    };
  }

  /** PDFBox finds the last signature and its byte range; BouncyCastle verifies the CMS over those bytes. */
  static void check(byte[] signedPdf, SigningKey key) throws Exception {
    try (PDDocument doc = Loader.loadPDF(signedPdf)) {
      PDSignature signature = doc.getLastSignatureDictionary();
      if (signature == null) throw new SignatureException("the signed PDF has no signature dictionary");
      byte[] signedContent = signature.getSignedContent(signedPdf);
      CMSSignedData cms = new CMSSignedData(new CMSProcessableByteArray(signedContent), signature.getContents(signedPdf));
      SignerInformation info = cms.getSignerInfos().getSigners().iterator().next();
      if (!info.verify(new JcaSimpleSignerInfoVerifierBuilder().build(key.certificate()))) {
        throw new SignatureException("the PAdES signature does not verify with BouncyCastle");
      }
    }
  }
}
