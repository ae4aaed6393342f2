package io.pkibench.formats.pec;

import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.Locale;
import java.util.Optional;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.CMSSignerDigestMismatchException;
import org.bouncycastle.cms.DefaultCMSSignatureAlgorithmNameGenerator;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.SignerInformationVerifier;
import org.bouncycastle.operator.DefaultSignatureAlgorithmIdentifierFinder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;

/**
 * Checks a provider's document against the providers of {@code index}, and reads what it carries.
 */
public final class DocumentVerifier {
  /**
   * Signatures are checked by the provider the JDK picks first for SHA256withRSA, as {@code
   * pec-ceiling} checks them; BouncyCastle's own choice fell to the JDK's slower one.
   */
  private static final Provider VERIFIER = verifier();

  /**
   * BouncyCastle's algorithm tables, read only once built: built per document they were 3.5% of the
   * receiving path (two maps of every algorithm it knows, filled in each constructor).
   */
  private static final DefaultCMSSignatureAlgorithmNameGenerator SIGNATURE_NAMES =
      new DefaultCMSSignatureAlgorithmNameGenerator();

  private static final DefaultSignatureAlgorithmIdentifierFinder SIGNATURE_IDS =
      new DefaultSignatureAlgorithmIdentifierFinder();

  private final ProviderIndex index;

  public DocumentVerifier(ProviderIndex index) {
    this.index = index;
  }

  private static Provider verifier() {
    try {
      return Signature.getInstance("SHA256withRSA").getProvider();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Checks a message's S/MIME signature: one signer, whose certificate is a provider's in the
   * index, whose domain is the one in From, and whose signature verifies over the signed part.
   */
  public Verification verify(byte[] raw) {
    MimeMessage message;
    try {
      message = new MimeMessage(PecProvider.SESSION, new ByteArrayInputStream(raw));
    } catch (MessagingException e) {
      return new Verification(
          Optional.empty(),
          Optional.empty(),
          "not a readable message: " + e.getMessage(),
          null,
          null);
    }
    Optional<DocumentKind> claimed =
        DocumentKind.of(
            MailReads.safe(() -> message.getHeader("X-Ricevuta", null), null),
            MailReads.safe(() -> message.getHeader("X-Trasporto", null), null));
    try {
      if (!message.isMimeType("multipart/signed")) {
        return new Verification(
            claimed,
            Optional.empty(),
            claimed.isPresent()
                ? "the message claims to be a provider's "
                    + claimed.get().value
                    + " but is not signed (no multipart/signed)"
                : "the message is not a PEC message (no provider signature)",
            message,
            null);
      }
      ClearSigned.Parts parts = parts(message);
      CMSSignedData signed =
          new CMSSignedData(new CMSProcessableByteArray(parts.signedPart()), parts.signature());
      var signers = signed.getSignerInfos().getSigners();
      if (signers.size() != 1)
        return new Verification(
            claimed,
            Optional.empty(),
            "the signature has " + signers.size() + " signers, not one",
            message,
            null);
      SignerInformation signer = signers.iterator().next();
      @SuppressWarnings("unchecked")
      var matches = signed.getCertificates().getMatches(signer.getSID());
      if (matches.isEmpty())
        return new Verification(
            claimed,
            Optional.empty(),
            "the signature carries no signer certificate",
            message,
            null);
      X509CertificateHolder holder = (X509CertificateHolder) matches.iterator().next();
      X509Certificate cert = new JcaX509CertificateConverter().getCertificate(holder);
      Optional<String> provider = index.domainOf(cert);
      if (provider.isEmpty()) {
        return new Verification(
            claimed,
            Optional.empty(),
            "signed by '"
                + cert.getSubjectX500Principal().getName()
                + "', not a provider of the index",
            message,
            null);
      }
      // as the seed's provider on every envelope: the signer's path to a trusted root, its validity
      // now and revocation
      if (index.pathCheck().isPresent()) {
        String pathProblem = index.pathCheck().get().problem(cert, new Date());
        if (pathProblem != null) {
          return new Verification(
              claimed,
              Optional.empty(),
              "the certificate of " + provider.get() + " is not trusted: " + pathProblem,
              message,
              null);
        }
      }
      boolean intact;
      try {
        intact =
            signer.verify(
                new SignerInformationVerifier(
                    SIGNATURE_NAMES,
                    SIGNATURE_IDS,
                    new JcaContentVerifierProviderBuilder()
                        .setProvider(VERIFIER)
                        .build(cert.getPublicKey()),
                    DocumentSigner.DIGESTS));
      } catch (CMSSignerDigestMismatchException e) {
        intact =
            false; // the signed part's digest differs from the one signed: BouncyCastle says so by
        // throwing
      }
      if (!intact) {
        return new Verification(
            claimed,
            Optional.empty(),
            "the signature does not verify: the message was altered after "
                + provider.get()
                + " signed it",
            message,
            null);
      }
      String fromDomain = fromDomain(message);
      if (!provider.get().equalsIgnoreCase(fromDomain)) {
        return new Verification(
            claimed,
            Optional.empty(),
            "signed by the provider of " + provider.get() + " but From is in " + fromDomain,
            message,
            null);
      }
      return new Verification(claimed, provider, null, message, parts.signedPart());
    } catch (Exception e) {
      return new Verification(
          claimed,
          Optional.empty(),
          "the signature cannot be checked: " + MailReads.firstLine(e),
          message,
          null);
    }
  }

  private static String fromDomain(MimeMessage message) throws MessagingException {
    Address[] from = message.getFrom();
    if (from == null || from.length != 1) return "(no single From)";
    String a = ((InternetAddress) from[0]).getAddress();
    return a.substring(a.indexOf('@') + 1).toLowerCase(Locale.ROOT);
  }

  /**
   * The daticert.xml and postacert.eml of a signed document as bytes (the signature is not checked
   * here; see {@link #verify}).
   */
  public static SignedContent signedContent(byte[] raw) throws Exception {
    MimeMessage message = new MimeMessage(PecProvider.SESSION, new ByteArrayInputStream(raw));
    if (!message.isMimeType("multipart/signed"))
      throw new IllegalArgumentException("not a signed PEC document (no multipart/signed)");
    return contentOf(parts(message).signedPart());
  }

  /** The signed part and the signature of a multipart/signed message, from its body as it came. */
  private static ClearSigned.Parts parts(MimeMessage message)
      throws MessagingException, IOException {
    String boundary = new ContentType(message.getContentType()).getParameter("boundary");
    if (boundary == null || boundary.isEmpty())
      throw new IllegalArgumentException("multipart/signed without a boundary parameter");
    try (InputStream body = message.getRawInputStream()) {
      return ClearSigned.split(body.readAllBytes(), boundary);
    }
  }

  static SignedContent contentOf(byte[] signedPart) throws Exception {
    return DocumentBody.read(signedPart);
  }
}
