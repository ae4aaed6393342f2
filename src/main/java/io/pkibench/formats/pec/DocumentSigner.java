package io.pkibench.formats.pec;

import io.pkibench.keys.SigningKey;
import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateEncodingException;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.bouncycastle.asn1.ASN1UTCTime;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.AttributeTable;
import org.bouncycastle.asn1.cms.CMSAttributes;
import org.bouncycastle.asn1.cms.Time;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.DefaultSignedAttributeTableGenerator;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.operator.DigestCalculatorProvider;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * Signs a provider's documents: the text, the original as {@code postacert.eml} and {@code
 * daticert.xml} in a multipart/mixed, S/MIME clear-signed ({@code multipart/signed}, {@code
 * smime.p7s}) with the provider's key, with the headers the rules give every document.
 */
public final class DocumentSigner {
  /**
   * The content digest through the JDK's own SHA-256 (an intrinsic on CPUs with SHA extensions), in
   * one pass over the signed part; the signature itself goes through the key's provider.
   */
  static final DigestCalculatorProvider DIGESTS = digests();

  private final ProviderIdentity identity;
  private final SigningKey key;
  private final String signatureAlgorithm;

  /** The provider's certificate, carried in every signature. */
  private final JcaCertStore certificates;

  /**
   * The same, as the SignerInfo names it: parsed once here, where building the SignerInfo from the
   * X509Certificate re-parsed it on every document (a tenth of the sending path's CPU in its
   * profile).
   */
  private final X509CertificateHolder signerCertificate;

  /**
   * The signing time's clock: the system's, as BouncyCastle's default was, not the document's (a
   * test may fix that one days back, and verifiers check the certificate's validity at the signing
   * time).
   */
  private static final InstantSource SIGNING_CLOCK = InstantSource.system();

  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  public DocumentSigner(ProviderIdentity identity, SigningKey key) {
    try {
      this.certificates = new JcaCertStore(List.of(key.certificate()));
      this.signerCertificate = new JcaX509CertificateHolder(key.certificate());
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException(
          "the provider's certificate cannot be encoded: " + e.getMessage(), e);
    }
    this.identity = identity;
    this.key = key;
    this.signatureAlgorithm =
        key.publicKey().getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
  }

  private static DigestCalculatorProvider digests() {
    try {
      return new JcaDigestCalculatorProviderBuilder().setProvider("SUN").build();
    } catch (OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  public Outgoing sign(
      DocumentKind kind,
      String messageId,
      String reference,
      String to,
      String from,
      String subject,
      String text,
      byte[] original,
      Daticert data)
      throws Exception {
    return sign(kind, messageId, reference, to, from, subject, text, original, data, false);
  }

  /**
   * A provider document: text, the original as {@code postacert.eml} (when given), {@code
   * daticert.xml} (when given) in a multipart/mixed, clear-signed; headers the rules give every
   * document.
   */
  public Outgoing sign(
      DocumentKind kind,
      String messageId,
      String reference,
      String to,
      String from,
      String subject,
      String text,
      byte[] original,
      Daticert data,
      boolean securityError)
      throws Exception {
    byte[] signedPart =
        ClearSigned.canonical(
            DocumentBody.write(text, original, data == null ? null : data.toXml()));
    CMSSignedDataGenerator generator = new CMSSignedDataGenerator();
    generator.addSignerInfoGenerator(
        new JcaSignerInfoGeneratorBuilder(DIGESTS)
            .setSignedAttributeGenerator(
                new DefaultSignedAttributeTableGenerator(
                    new AttributeTable(signingTime(SIGNING_CLOCK.instant()))))
            .build(
                new JcaContentSignerBuilder(signatureAlgorithm)
                    .setProvider(key.provider())
                    .build(key.privateKey()),
                signerCertificate));
    generator.addCertificates(certificates);
    // Definite-length as it was built: re-encoded as DER, the certificate's every element was
    // re-wrapped and re-measured per
    // document; with one signer, one certificate and DER attributes the bytes are the same
    // (PecProviderTest holds them to it).
    byte[] signature =
        generator.generate(new CMSProcessableByteArray(signedPart), false).getEncoded("DL");
    // The headers as Jakarta Mail writes them (addresses, encoded subject, date); the body is ours,
    // byte for byte what was signed.
    MimeMessage message = new MimeMessage(PecProvider.SESSION);
    message.setHeader("Message-ID", messageId);
    message.setSentDate(Date.from(identity.clock().instant()));
    message.setFrom(new InternetAddress(from));
    message.setRecipients(Message.RecipientType.TO, InternetAddress.parse(to));
    message.setSubject(kind.subjectPrefix + subject, "UTF-8");
    message.setHeader(kind.header, kind.value);
    if (reference != null) message.setHeader("X-Riferimento-Message-ID", reference);
    if (securityError) message.setHeader("X-VerificaSicurezza", "errore");
    if (kind == DocumentKind.TRANSPORT || kind == DocumentKind.ANOMALY) {
      String sender =
          from.substring(
              from.indexOf("Per conto di: ") + "Per conto di: ".length(),
              from.indexOf('"', from.indexOf("Per conto di: ")));
      message.setReplyTo(InternetAddress.parse(sender));
    }
    String boundary = "----=_pkibench_signed_" + UUID.randomUUID().toString().replace("-", "");
    message.setHeader("MIME-Version", "1.0");
    message.setHeader("Content-Type", ClearSigned.contentType(boundary));
    byte[] bytes =
        ClearSigned.message(
            Collections.list(message.getAllHeaderLines()), signedPart, signature, boundary);
    List<String> rcpts = new ArrayList<>();
    for (InternetAddress a : InternetAddress.parse(to)) rcpts.add(a.getAddress());
    return new Outgoing(kind, identity.address(), rcpts, messageId, bytes);
  }

  /**
   * The signing-time attribute at {@code at}. Left to BouncyCastle, it was made through a
   * SimpleDateFormat built and parsed twice per signature (a sixth of the sending path's CPU); here
   * the UTCTime's DER is written directly. From 2050 on RFC 5652 wants GeneralizedTime, which
   * BouncyCastle's Time chooses.
   */
  static Attribute signingTime(Instant at) {
    int year = at.atZone(ZoneOffset.UTC).getYear();
    if (year < 1950 || year >= 2050)
      return new Attribute(
          CMSAttributes.signingTime, new DERSet(new Time(Date.from(at), Locale.ROOT)));
    byte[] text = UTC_TIME.format(at).getBytes(StandardCharsets.US_ASCII);
    byte[] der = new byte[2 + text.length];
    der[0] = 0x17; // UTCTime
    der[1] = (byte) text.length;
    System.arraycopy(text, 0, der, 2, text.length);
    return new Attribute(CMSAttributes.signingTime, new DERSet(ASN1UTCTime.getInstance(der)));
  }
}
