package io.pkibench.formats.ades;

import eu.europa.esig.dss.model.x509.CertificateToken;
import eu.europa.esig.dss.signature.AbstractSignatureParameters;
import eu.europa.esig.dss.spi.exception.IllegalInputException;
import java.security.cert.X509Certificate;
import java.util.Date;

/**
 * What DSS's default {@code CertificateVerifier} decides before it signs, taken from the
 * certificate alone: the signing certificate must be valid at the signing date (neither expired nor
 * not yet valid). Revocation is not checked at signing time, as in DSS's defaults.
 */
public final class SigningCertificateCheck {
  private SigningCertificateCheck() {}

  /**
   * The signing certificate is expired or not yet valid at the signing date: the caller's
   * certificate is at fault, not the document.
   */
  public static final class NotValidAtSigningDate extends IllegalInputException {
    NotValidAtSigningDate(String message) {
      super(message);
    }
  }

  static void assertValidAtSigningDate(AbstractSignatureParameters<?> parameters) {
    CertificateToken certificate = parameters.getSigningCertificate();
    if (certificate == null) {
      if (parameters.isGenerateTBSWithoutCertificate()) return;
      throw new IllegalArgumentException(
          "no signing certificate: the first certificate of the chain signs");
    }
    assertValidAt(certificate.getCertificate(), parameters.bLevel().getSigningDate());
  }

  /**
   * {@code certificate} is valid at {@code signingDate}, else {@link NotValidAtSigningDate} saying
   * why.
   */
  public static void assertValidAt(X509Certificate certificate, Date signingDate) {
    if (signingDate.before(certificate.getNotBefore())) {
      throw new NotValidAtSigningDate(
          "the signing certificate "
              + certificate.getSubjectX500Principal().getName()
              + " is not valid before "
              + certificate.getNotBefore().toInstant()
              + " (signing date "
              + signingDate.toInstant()
              + ")");
    }
    if (signingDate.after(certificate.getNotAfter())) {
      throw new NotValidAtSigningDate(
          "the signing certificate "
              + certificate.getSubjectX500Principal().getName()
              + " expired on "
              + certificate.getNotAfter().toInstant()
              + " (signing date "
              + signingDate.toInstant()
              + ")");
    }
  }
}
