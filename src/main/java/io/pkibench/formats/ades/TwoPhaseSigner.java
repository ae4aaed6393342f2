package io.pkibench.formats.ades;

import eu.europa.esig.dss.cades.CAdESSignatureParameters;
import eu.europa.esig.dss.cades.signature.CAdESService;
import eu.europa.esig.dss.enumerations.DigestAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureLevel;
import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.DSSDocument;
import eu.europa.esig.dss.model.DigestDocument;
import eu.europa.esig.dss.model.SignatureValue;
import eu.europa.esig.dss.model.ToBeSigned;
import eu.europa.esig.dss.model.x509.CertificateToken;
import eu.europa.esig.dss.pades.PAdESSignatureParameters;
import eu.europa.esig.dss.pades.signature.PAdESService;
import eu.europa.esig.dss.pdf.pdfbox.PdfBoxNativeObjectFactory;
import eu.europa.esig.dss.signature.AbstractSignatureParameters;
import eu.europa.esig.dss.spi.validation.CommonCertificateVerifier;
import eu.europa.esig.dss.xades.XAdESSignatureParameters;
import eu.europa.esig.dss.xades.signature.XAdESService;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.KeyAlgorithm;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * The two phases of a signing service, for each AdES format: {@link #start} builds the parameters
 * and returns what the key holder must sign (DSS {@code getDataToSign}); {@link #finish} assembles
 * the signature around the signature value (DSS {@code signDocument}). The key never comes here:
 * only certificates and signature values do, as with Rest PKI or DSS's REST services.
 */
public final class TwoPhaseSigner {
  /**
   * What travels between the phases; the signing date in {@code parameters} must not change between
   * them.
   */
  public record Pending(
      Format format,
      DSSDocument document,
      AbstractSignatureParameters<?> parameters,
      byte[] toSign,
      SignatureAlgorithm algorithm) {}

  public enum Format {
    CADES("cades", SignatureLevel.CAdES_BASELINE_B),
    CADES_T("cades-t", SignatureLevel.CAdES_BASELINE_T),
    PADES("pades", SignatureLevel.PAdES_BASELINE_B),
    PADES_T("pades-t", SignatureLevel.PAdES_BASELINE_T),
    XADES("xades", SignatureLevel.XAdES_BASELINE_B);

    public final String flag;
    final SignatureLevel level;

    Format(String flag, SignatureLevel level) {
      this.flag = flag;
      this.level = level;
    }

    public static Format parse(String flag) {
      for (Format f : values()) if (f.flag.equals(flag)) return f;
      throw new IllegalArgumentException(
          "unknown signature type '" + flag + "'; use cades, cades-t, pades, pades-t or xades");
    }

    public boolean timestamped() {
      return this == CADES_T || this == PADES_T;
    }
  }

  /**
   * Room for the CMS of a PAdES-B-T in the PDF: the signature, its chain and a time-stamp token
   * with a long TSA chain.
   */
  static final int PADES_T_CONTENT_BYTES = 24 * 1024;

  private final CAdESService cades;
  private final PAdESService pades;
  private final XAdESService xades;
  private final CertificateTokens tokens;
  private final InstantSource clock;

  /** The time-stamps come from a TSA we did not write, whose tokens may be of any size. */
  private final boolean outsideTsa;

  /**
   * {@code tsa} may be null when no -T level is used; {@code clock} dates each signature. Not
   * thread-safe in DSS's sense: one per worker or per request.
   */
  public TwoPhaseSigner(TimeStampResponder tsa, InstantSource clock) {
    this(tsa, new CertificateTokens(), clock);
  }

  /**
   * With {@code tsaCheck} judging each of {@code tsa}'s replies (an outside TSA's tokens verified
   * against the trust a user gave).
   */
  public TwoPhaseSigner(TimeStampResponder tsa, TimeStampCheck tsaCheck, InstantSource clock) {
    this(tsa, tsaCheck, new CertificateTokens(), clock);
  }

  /**
   * With {@code tokens} shared by the signers of one service (thread-safe), so each certificate is
   * wrapped and checked once.
   */
  public TwoPhaseSigner(TimeStampResponder tsa, CertificateTokens tokens, InstantSource clock) {
    this(tsa, new TimeStampCheck(null), tokens, clock);
  }

  /**
   * A service's signer: {@code tokens} shared, each of {@code tsa}'s replies judged by {@code
   * tsaCheck}.
   */
  public TwoPhaseSigner(
      TimeStampResponder tsa,
      TimeStampCheck tsaCheck,
      CertificateTokens tokens,
      InstantSource clock) {
    QuietXmlParsers
        .install(); // a client's malformed XML is refused, not printed to the service's stderr
    this.outsideTsa = tsa != null && !(tsa instanceof TimeStampAuthority);
    this.tokens = tokens;
    this.clock = clock;
    // Each service checks the signing certificate in both phases. DSS's own check builds and
    // validates a whole validation context per call (chain building, an offline verifier copy) to
    // decide what its defaults ask: is the certificate valid at the signing date. That was 16% of
    // the signing service's CPU per CAdES; the same decision from the certificate itself costs
    // nothing.
    cades =
        new CAdESService(new CommonCertificateVerifier()) {
          @Override
          protected void assertSigningCertificateValid(AbstractSignatureParameters<?> parameters) {
            SigningCertificateCheck.assertValidAtSigningDate(parameters);
          }
        };
    pades =
        new PAdESService(new CommonCertificateVerifier()) {
          @Override
          protected void assertSigningCertificateValid(AbstractSignatureParameters<?> parameters) {
            SigningCertificateCheck.assertValidAtSigningDate(parameters);
          }
        };
    pades.setPdfObjFactory(new PdfBoxNativeObjectFactory());
    xades =
        new XAdESService(new CommonCertificateVerifier()) {
          @Override
          protected void assertSigningCertificateValid(AbstractSignatureParameters<?> parameters) {
            SigningCertificateCheck.assertValidAtSigningDate(parameters);
          }
        };
    if (tsa != null) {
      cades.setTspSource(new ResponderTspSource(tsa, tsaCheck));
      pades.setTspSource(new ResponderTspSource(tsa, tsaCheck));
    }
  }

  /** Phase one: {@code chain} leaf first; {@code packaging} matters for CAdES only. */
  public Pending start(
      Format format,
      DSSDocument document,
      List<X509Certificate> chain,
      SignaturePackaging packaging) {
    if ((format == Format.CADES || format == Format.CADES_T)
        && packaging == SignaturePackaging.DETACHED) {
      // A detached CMS needs only the document's digest. Handing DSS the digest (made by the JDK's
      // SHA-256, which uses the CPU's SHA instructions) spares it hashing the document twice in
      // BouncyCastle's pure-Java SHA-256: 70% of a 137 KB CAdES signature's CPU before this.
      document = digestOf(document);
    }
    AbstractSignatureParameters<?> parameters =
        switch (format) {
          case CADES, CADES_T -> {
            CAdESSignatureParameters p = new CAdESSignatureParameters();
            p.setSignaturePackaging(packaging);
            yield p;
          }
          case PADES -> new PAdESSignatureParameters();
          case PADES_T -> {
            // The space reserved in the PDF must hold the time-stamp token too, and an outside
            // TSA's token is as big as
            // the chain it carries: DSS's default (9,472 bytes) was too small for OpenSSL's TSA
            // sending a three-certificate
            // chain. Ours is known to fit, and its signatures stay as they were measured.
            PAdESSignatureParameters p = new PAdESSignatureParameters();
            if (outsideTsa) p.setContentSize(PADES_T_CONTENT_BYTES);
            yield p;
          }
          case XADES -> {
            XAdESSignatureParameters p = new XAdESSignatureParameters();
            p.setSignaturePackaging(SignaturePackaging.ENVELOPED);
            yield p;
          }
        };
    parameters.setSignatureLevel(format.level);
    parameters.setDigestAlgorithm(DigestAlgorithm.SHA256);
    List<CertificateToken> chainTokens = tokens.of(chain);
    parameters.setSigningCertificate(chainTokens.get(0));
    parameters.setCertificateChain(chainTokens);
    parameters.bLevel().setSigningDate(Date.from(clock.instant()));
    ToBeSigned toBeSigned =
        switch (format) {
          case CADES, CADES_T ->
              cades.getDataToSign(document, (CAdESSignatureParameters) parameters);
          case PADES, PADES_T ->
              pades.getDataToSign(document, (PAdESSignatureParameters) parameters);
          case XADES -> xades.getDataToSign(document, (XAdESSignatureParameters) parameters);
        };
    SignatureAlgorithm algorithm =
        SignatureAlgorithm.forJAVA(KeyAlgorithm.signatureAlgorithmFor(chain.get(0).getPublicKey()));
    return new Pending(format, document, parameters, toBeSigned.getBytes(), algorithm);
  }

  /**
   * Both phases in one go with a key this process holds (the in-process workloads): the signed
   * document's bytes.
   */
  public byte[] sign(
      Format format, DSSDocument document, SigningKey key, SignaturePackaging packaging)
      throws IOException, GeneralSecurityException {
    Pending pending = start(format, document, key.chain(), packaging);
    Signature signer = Signature.getInstance(pending.algorithm().getJCEId(), key.provider());
    signer.initSign(key.privateKey());
    signer.update(pending.toSign());
    return finish(pending, signer.sign());
  }

  private static DSSDocument digestOf(DSSDocument document) {
    try (InputStream in = document.openStream()) {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[64 * 1024];
      for (int n = in.read(buffer); n > 0; n = in.read(buffer)) sha256.update(buffer, 0, n);
      // No name: DSS would guess a MIME type from it through a ServiceLoader scan on every call.
      return new DigestDocument(
          DigestAlgorithm.SHA256, Base64.getEncoder().encodeToString(sha256.digest()));
    } catch (IOException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot hash the document: " + e.getMessage(), e);
    }
  }

  /** Phase two: the signed document's bytes. */
  public byte[] finish(Pending pending, byte[] signatureValue) throws IOException {
    SignatureValue value = new SignatureValue(pending.algorithm(), signatureValue);
    DSSDocument signed =
        switch (pending.format()) {
          case CADES, CADES_T ->
              cades.signDocument(
                  pending.document(), (CAdESSignatureParameters) pending.parameters(), value);
          case PADES, PADES_T ->
              pades.signDocument(
                  pending.document(), (PAdESSignatureParameters) pending.parameters(), value);
          case XADES ->
              xades.signDocument(
                  pending.document(), (XAdESSignatureParameters) pending.parameters(), value);
        };
    try (InputStream in = signed.openStream()) {
      return in.readAllBytes();
    }
  }
}
