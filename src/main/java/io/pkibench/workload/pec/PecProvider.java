package io.pkibench.workload.pec;

import io.pkibench.keys.SigningKey;
import jakarta.activation.DataHandler;
import jakarta.mail.Address;
import jakarta.mail.BodyPart;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.Session;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.SignerInformation;

/**
 * One PEC provider's document logic in the roles of RFC 6109: the access point ({@link #accept}: a
 * user's message becomes an acceptance receipt and a transport envelope, or a non-acceptance), the
 * incoming and delivery points ({@link #receive}: a verified envelope becomes a taking-charge receipt,
 * the envelope in each recipient's mailbox and a delivery receipt per recipient; anything unverified
 * an anomaly envelope). Every document it issues is S/MIME clear-signed ({@code multipart/signed},
 * {@code smime.p7s}) with the provider's key. No I/O: the server spools and carries what this returns,
 * the workloads measure it in memory.
 *
 * <p>Ids are derived from the caller's job id, so that a job done again after a crash issues the same
 * Message-IDs and the receiving side can drop the repeat.
 */
public final class PecProvider {
  /** The local part a provider signs and receives its own documents with. */
  public static final String PROVIDER_MAILBOX = "posta-certificata";

  private final String domain;
  private final String name;
  private final SigningKey key;
  private final ProviderIndex index;
  private final InstantSource clock;
  private final ZoneId zone;
  /** One session for reading and writing messages: it holds only properties (none here), so every provider and call shares it. */
  static final Session SESSION = Session.getInstance(new Properties());
  private final String signatureAlgorithm;
  /** The provider's certificate, carried in every signature. */
  private final JcaCertStore certificates;
  /**
   * The content digest through the JDK's own SHA-256 (an intrinsic on CPUs with SHA extensions), in one
   * pass over the signed part; the signature itself goes through the key's provider.
   */
  private static final org.bouncycastle.operator.DigestCalculatorProvider DIGESTS = digests();
  /**
   * Signatures are checked by the provider the JDK picks first for SHA256withRSA, as {@code pec-ceiling}
   * checks them; BouncyCastle's own choice fell to the JDK's slower one.
   */
  private static final java.security.Provider VERIFIER = verifier();

  private static java.security.Provider verifier() {
    try {
      return java.security.Signature.getInstance("SHA256withRSA").getProvider();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static org.bouncycastle.operator.DigestCalculatorProvider digests() {
    try {
      return new org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder().setProvider("SUN").build();
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  public PecProvider(String domain, String name, SigningKey key, ProviderIndex index, InstantSource clock, ZoneId zone) {
    try {
      this.certificates = new JcaCertStore(List.of(key.certificate()));
    } catch (java.security.cert.CertificateEncodingException e) {
      throw new IllegalArgumentException("the provider's certificate cannot be encoded: " + e.getMessage(), e);
    }
    this.domain = domain.toLowerCase(Locale.ROOT);
    this.name = name;
    this.key = key;
    this.index = index;
    this.clock = clock;
    this.zone = zone;
    this.signatureAlgorithm = key.publicKey().getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
  }

  public String domain() {
    return domain;
  }

  /** {@code posta-certificata@DOMAIN}: the From of this provider's documents and the mailbox of the receipts it is sent. */
  public String address() {
    return PROVIDER_MAILBOX + "@" + domain;
  }

  public ProviderIndex index() {
    return index;
  }

  /** The provider's id for the message of job {@code jobId}: its envelope's Message-ID, {@code identificativo} in daticert.xml. */
  public String identificativo(String jobId) {
    return "opec." + jobId + "@" + domain;
  }

  // ---------------------------------------------------------------- access point

  /**
   * A message a user of this provider submitted ({@code envelopeFrom} on SMTP, to {@code rcpts}): the
   * acceptance receipt to the sender and the transport envelope to the recipients, or the
   * non-acceptance receipt saying each formal problem.
   */
  public List<Outgoing> accept(String jobId, String envelopeFrom, List<String> rcpts, byte[] raw) throws Exception {
    List<String> problems = new ArrayList<>();
    MimeMessage message = readable(raw, problems);
    if (message != null) problems.addAll(formalProblems(message, envelopeFrom, rcpts));
    String subject = message == null ? "" : safe(() -> message.getSubject(), "");
    String msgid = message == null ? null : safe(() -> message.getMessageID(), null);
    ZonedDateTime now = now();
    List<Daticert.Recipient> recipients = rcpts.stream().map(r -> new Daticert.Recipient(r, certified(r))).toList();
    String id = identificativo(jobId);
    if (!problems.isEmpty()) return List.of(nonAcceptance(jobId, envelopeFrom, rcpts, subject, msgid, problems));
    String from = envelopeFrom;
    Daticert accepted = new Daticert(DocumentKind.ACCEPTANCE.value, null, from, recipients, from, subject, name, now, id, msgid, null, null, null, null);
    String rcptText = String.join("\r\n", rcpts.stream().map(r -> r + " (\"posta " + (certified(r) ? "certificata" : "ordinaria") + "\")").toList());
    String acceptanceText = "Ricevuta di accettazione\r\n\r\nIl giorno " + day(now) + " alle ore " + time(now) + " (" + zone(now) + ") il messaggio\r\n\""
        + subject + "\" proveniente da \"" + from + "\"\r\ned indirizzato a:\r\n" + rcptText
        + "\r\nè stato accettato dal sistema ed inoltrato.\r\nIdentificativo messaggio: " + id + "\r\n";
    Outgoing acceptance = document(DocumentKind.ACCEPTANCE, "<accettazione." + jobId + "@" + domain + ">", msgid, from, address(), subject,
        acceptanceText, null, accepted);
    Daticert transport = new Daticert(DocumentKind.TRANSPORT.value, null, from, recipients, safe(() -> replyTo(message), from), subject, name, now,
        id, msgid, null, null, null, null);
    String envelopeText = "Messaggio di posta certificata\r\n\r\nIl giorno " + day(now) + " alle ore " + time(now) + " (" + zone(now)
        + ") il messaggio\r\n\"" + subject + "\" è stato inviato da \"" + from + "\"\r\nindirizzato a:\r\n" + String.join("\r\n", rcpts)
        + "\r\nIl messaggio originale è incluso in allegato.\r\nIdentificativo messaggio: " + id + "\r\n";
    Outgoing envelope = document(DocumentKind.TRANSPORT, "<" + id + ">", msgid, String.join(", ", rcpts), "\"Per conto di: " + from + "\" <" + address() + ">",
        subject, envelopeText, raw, transport);
    return List.of(acceptance, envelope.to(rcpts));
  }

  /**
   * The non-acceptance receipt to {@code envelopeFrom} naming each problem: for a formal problem, and
   * for a submission the provider took (250) but can never process, so that its sender is told.
   */
  public Outgoing nonAcceptance(String jobId, String envelopeFrom, List<String> rcpts, String subject, String msgid, List<String> problems)
      throws Exception {
    ZonedDateTime now = now();
    List<Daticert.Recipient> recipients = rcpts.stream().map(r -> new Daticert.Recipient(r, certified(r))).toList();
    String id = identificativo(jobId);
    Daticert data = new Daticert(DocumentKind.NON_ACCEPTANCE.value, "altro", envelopeFrom, recipients.isEmpty()
        ? List.of(new Daticert.Recipient("(none)", false)) : recipients, envelopeFrom, subject, name, now, id, msgid, null, null, null,
        String.join("; ", problems));
    String text = "Avviso di non accettazione\r\n\r\nIl giorno " + day(now) + " alle ore " + time(now) + " (" + zone(now) + ") nel messaggio\r\n\""
        + subject + "\" proveniente da \"" + envelopeFrom + "\"\r\nsono stati rilevati problemi che ne impediscono l'accettazione:\r\n"
        + String.join("\r\n", problems) + "\r\nIl messaggio non è stato accettato.\r\nIdentificativo messaggio: " + id + "\r\n";
    return document(DocumentKind.NON_ACCEPTANCE, "<non-accettazione." + jobId + "@" + domain + ">", msgid, envelopeFrom, address(),
        subject, text, null, data);
  }

  /** The message, or null with the reason in {@code problems}. */
  private MimeMessage readable(byte[] raw, List<String> problems) {
    try {
      MimeMessage message = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
      message.getAllHeaders(); // the headers are read now, so that a damaged block is a problem here rather than later
      return message;
    } catch (MessagingException e) {
      problems.add("the message cannot be read as RFC 5322 mail (" + e.getMessage() + ")");
      return null;
    }
  }

  private static String replyTo(MimeMessage message) throws MessagingException {
    Address[] replyTo = message.getReplyTo();
    return replyTo == null || replyTo.length == 0 ? null : ((InternetAddress) replyTo[0]).getAddress();
  }

  /** What the access point refuses a message for; every problem, each in words a sender can act on. */
  List<String> formalProblems(MimeMessage message, String envelopeFrom, List<String> rcpts) throws MessagingException {
    List<String> problems = new ArrayList<>();
    if (message.getMessageID() == null || message.getMessageID().isBlank()) {
      problems.add("the message has no Message-ID header (RFC 5322 §3.6.4): its receipts could not be correlated");
    }
    String[] from = message.getHeader("From");
    if (from == null || from.length != 1) {
      problems.add("the message needs exactly one From header, it has " + (from == null ? 0 : from.length));
    } else {
      try {
        InternetAddress[] parsed = InternetAddress.parseHeader(from[0], true);
        if (parsed.length != 1) problems.add("From must name one address, not " + parsed.length);
        else if (!parsed[0].getAddress().equalsIgnoreCase(envelopeFrom)) {
          problems.add("From <" + parsed[0].getAddress() + "> is not the sender <" + envelopeFrom + "> the provider accepted the message from");
        }
      } catch (AddressException e) {
        problems.add("From is not an address: " + e.getMessage());
      }
    }
    if (message.getHeader("Bcc") != null) problems.add("PEC does not carry blind copies: remove the Bcc header");
    if (rcpts.isEmpty()) problems.add("the message has no recipient");
    return problems;
  }

  // ---------------------------------------------------------------- incoming and delivery points

  /**
   * A message from another provider (or anyone) for {@code rcpts}, all users of this provider: a
   * verified transport envelope gives a taking-charge receipt to its provider, the envelope itself in
   * each recipient's mailbox and a delivery receipt per recipient to its sender; a verified receipt is
   * delivered as it is; anything else an anomaly envelope per recipient, with {@code X-VerificaSicurezza:
   * errore} when it claimed to be a provider's document and its signature did not check.
   */
  public List<Outgoing> receive(String jobId, String envelopeFrom, List<String> rcpts, byte[] raw) throws Exception {
    Verification v = verify(raw);
    List<Outgoing> out = new ArrayList<>();
    String messageId = safe(() -> v.message().getMessageID(), "<" + jobId + "@unknown>");
    if (v.verified() && v.claimed().get() == DocumentKind.TRANSPORT) {
      SignedContent content = contentOf(v.signedPart());
      Daticert sent = content.daticert();
      ZonedDateTime now = now();
      String id = sent.identificativo();
      List<Daticert.Recipient> recipients = rcpts.stream().map(r -> new Daticert.Recipient(r, true)).toList();
      String senderProvider = PROVIDER_MAILBOX + "@" + v.signedBy().get();
      Daticert taken = new Daticert(DocumentKind.TAKING_CHARGE.value, null, sent.mittente(), recipients, sent.risposte(), sent.oggetto(), name, now,
          id, sent.msgid(), null, null, null, null);
      String takenText = "Ricevuta di presa in carico\r\n\r\nIl giorno " + day(now) + " alle ore " + time(now) + " (" + zone(now) + ") il messaggio\r\n\""
          + sent.oggetto() + "\" proveniente da \"" + sent.mittente() + "\"\r\ned indirizzato a:\r\n" + String.join("\r\n", rcpts)
          + "\r\nè stato accettato dal sistema.\r\nIdentificativo messaggio: " + id + "\r\n";
      out.add(document(DocumentKind.TAKING_CHARGE, "<presa-in-carico." + jobId + "@" + domain + ">", sent.msgid(), senderProvider, address(),
          sent.oggetto(), takenText, null, taken).to(List.of(senderProvider)));
      for (int i = 0; i < rcpts.size(); i++) {
        String rcpt = rcpts.get(i);
        out.add(new Outgoing(null, envelopeFrom, List.of(rcpt), messageId, raw));
        Daticert delivered = new Daticert(DocumentKind.DELIVERY.value, null, sent.mittente(), List.of(new Daticert.Recipient(rcpt, true)),
            sent.risposte(), sent.oggetto(), name, now, id, sent.msgid(), "completa", rcpt, null, null);
        String deliveredText = "Ricevuta di avvenuta consegna\r\n\r\nIl giorno " + day(now) + " alle ore " + time(now) + " (" + zone(now)
            + ") il messaggio\r\n\"" + sent.oggetto() + "\" proveniente da \"" + sent.mittente() + "\"\r\ned indirizzato a \"" + rcpt
            + "\"\r\nè stato consegnato nella casella di destinazione.\r\nIdentificativo messaggio: " + id + "\r\n";
        out.add(document(DocumentKind.DELIVERY, "<avvenuta-consegna." + jobId + "." + i + "@" + domain + ">", sent.msgid(), sent.mittente(), address(),
            sent.oggetto(), deliveredText, content.original(), delivered).to(List.of(sent.mittente())));
      }
      return out;
    }
    if (v.verified()) {
      for (String rcpt : rcpts) out.add(new Outgoing(null, envelopeFrom, List.of(rcpt), messageId, raw));
      return out;
    }
    String subject = safe(() -> v.message().getSubject(), "");
    String reference = safe(() -> v.message().getMessageID(), null);
    ZonedDateTime now = now();
    for (int i = 0; i < rcpts.size(); i++) {
      String rcpt = rcpts.get(i);
      String text = "Anomalia nel messaggio\r\n\r\nIl giorno " + day(now) + " alle ore " + time(now) + " (" + zone(now) + ") è stato ricevuto\r\n"
          + "il messaggio \"" + subject + "\" proveniente da \"" + envelopeFrom + "\"\r\nindirizzato a:\r\n" + rcpt
          + "\r\nTali dati non sono stati certificati per il seguente errore:\r\n" + v.problem()
          + "\r\nIl messaggio originale è incluso in allegato.\r\n";
      Outgoing anomaly = document(DocumentKind.ANOMALY, "<errore." + jobId + "." + i + "@" + domain + ">", reference, rcpt,
          "\"Per conto di: " + envelopeFrom + "\" <" + address() + ">", subject, text, raw, null, v.securityFailure());
      out.add(anomaly);
    }
    return out;
  }

  /**
   * The non-delivery notice ({@code avviso di mancata consegna}) to the sender of a transport envelope
   * this provider issued and the recipients' provider refused for good ({@code reason}, its SMTP
   * reply); {@code noSuchRecipient} when the refusal named the mailbox (550), {@code errore} no-dest.
   */
  public Outgoing nonDelivery(String jobId, byte[] envelope, List<String> rcpts, String reason, boolean noSuchRecipient) throws Exception {
    Daticert sent = signedContent(envelope).daticert();
    ZonedDateTime now = now();
    Daticert data = new Daticert(DocumentKind.NON_DELIVERY.value, noSuchRecipient ? "no-dest" : "altro", sent.mittente(),
        rcpts.stream().map(r -> new Daticert.Recipient(r, true)).toList(), sent.risposte(), sent.oggetto(), name, now, sent.identificativo(),
        sent.msgid(), null, null, null, reason);
    String text = "Avviso di mancata consegna\r\n\r\nIl giorno " + day(now) + " alle ore " + time(now) + " (" + zone(now) + ") nel messaggio\r\n\""
        + sent.oggetto() + "\" proveniente da \"" + sent.mittente() + "\"\r\ned indirizzato a:\r\n" + String.join("\r\n", rcpts)
        + "\r\nè stato rilevato un errore di consegna: " + reason + "\r\nIl messaggio non è stato consegnato.\r\nIdentificativo messaggio: "
        + sent.identificativo() + "\r\n";
    return document(DocumentKind.NON_DELIVERY, "<errore-consegna." + jobId + "@" + domain + ">", sent.msgid(), sent.mittente(), address(),
        sent.oggetto(), text, null, data).to(List.of(sent.mittente()));
  }

  /**
   * Checks a message's S/MIME signature: one signer, whose certificate is a provider's in the index,
   * whose domain is the one in From, and whose signature verifies over the signed part.
   */
  public Verification verify(byte[] raw) {
    MimeMessage message;
    try {
      message = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
    } catch (MessagingException e) {
      return new Verification(Optional.empty(), Optional.empty(), "not a readable message: " + e.getMessage(), null, null);
    }
    Optional<DocumentKind> claimed = DocumentKind.of(safe(() -> message.getHeader("X-Ricevuta", null), null),
        safe(() -> message.getHeader("X-Trasporto", null), null));
    try {
      if (!message.isMimeType("multipart/signed")) {
        return new Verification(claimed, Optional.empty(), claimed.isPresent() ? "the message claims to be a provider's " + claimed.get().value
            + " but is not signed (no multipart/signed)" : "the message is not a PEC message (no provider signature)", message, null);
      }
      ClearSigned.Parts parts = parts(message);
      org.bouncycastle.cms.CMSSignedData signed = new org.bouncycastle.cms.CMSSignedData(
          new org.bouncycastle.cms.CMSProcessableByteArray(parts.signedPart()), parts.signature());
      var signers = signed.getSignerInfos().getSigners();
      if (signers.size() != 1) return new Verification(claimed, Optional.empty(), "the signature has " + signers.size() + " signers, not one", message, null);
      SignerInformation signer = signers.iterator().next();
      @SuppressWarnings("unchecked")
      var matches = signed.getCertificates().getMatches(signer.getSID());
      if (matches.isEmpty()) return new Verification(claimed, Optional.empty(), "the signature carries no signer certificate", message, null);
      X509CertificateHolder holder = (X509CertificateHolder) matches.iterator().next();
      X509Certificate cert = new JcaX509CertificateConverter().getCertificate(holder);
      Optional<String> provider = index.domainOf(cert);
      if (provider.isEmpty()) {
        return new Verification(claimed, Optional.empty(), "signed by '" + cert.getSubjectX500Principal().getName() + "', not a provider of the index", message, null);
      }
      boolean intact;
      try {
        intact = signer.verify(new org.bouncycastle.cms.SignerInformationVerifier(new org.bouncycastle.cms.DefaultCMSSignatureAlgorithmNameGenerator(),
            new org.bouncycastle.operator.DefaultSignatureAlgorithmIdentifierFinder(),
            new org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder().setProvider(VERIFIER).build(cert.getPublicKey()), DIGESTS));
      } catch (org.bouncycastle.cms.CMSSignerDigestMismatchException e) {
        intact = false; // the signed part's digest differs from the one signed: BouncyCastle says so by throwing
      }
      if (!intact) {
        return new Verification(claimed, Optional.empty(), "the signature does not verify: the message was altered after " + provider.get() + " signed it", message, null);
      }
      String fromDomain = fromDomain(message);
      if (!provider.get().equalsIgnoreCase(fromDomain)) {
        return new Verification(claimed, Optional.empty(), "signed by the provider of " + provider.get() + " but From is in " + fromDomain, message, null);
      }
      return new Verification(claimed, provider, null, message, parts.signedPart());
    } catch (Exception e) {
      return new Verification(claimed, Optional.empty(), "the signature cannot be checked: " + firstLine(e), message, null);
    }
  }

  private static String fromDomain(MimeMessage message) throws MessagingException {
    Address[] from = message.getFrom();
    if (from == null || from.length != 1) return "(no single From)";
    String a = ((InternetAddress) from[0]).getAddress();
    return a.substring(a.indexOf('@') + 1).toLowerCase(Locale.ROOT);
  }

  /** What a provider signed inside a document: its daticert.xml and, when there is one, the original message ({@code postacert.eml}). */
  public record SignedContent(Daticert daticert, byte[] original) {}

  /** The daticert.xml and postacert.eml of a signed document as bytes (the signature is not checked here; see {@link #verify}). */
  public static SignedContent signedContent(byte[] raw) throws Exception {
    MimeMessage message = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
    if (!message.isMimeType("multipart/signed")) throw new IllegalArgumentException("not a signed PEC document (no multipart/signed)");
    return contentOf(parts(message).signedPart());
  }

  /** The signed part and the signature of a multipart/signed message, from its body as it came. */
  private static ClearSigned.Parts parts(MimeMessage message) throws MessagingException, IOException {
    String boundary = new jakarta.mail.internet.ContentType(message.getContentType()).getParameter("boundary");
    if (boundary == null || boundary.isEmpty()) throw new IllegalArgumentException("multipart/signed without a boundary parameter");
    try (InputStream body = message.getRawInputStream()) {
      return ClearSigned.split(body.readAllBytes(), boundary);
    }
  }

  private static SignedContent contentOf(byte[] signedPart) throws Exception {
    MimeBodyPart part = new MimeBodyPart(new ByteArrayInputStream(signedPart));
    if (!(part.getContent() instanceof Multipart mixed)) throw new IllegalArgumentException("the signed part is not multipart/mixed");
    Daticert daticert = null;
    byte[] original = null;
    for (int i = 0; i < mixed.getCount(); i++) {
      BodyPart p = mixed.getBodyPart(i);
      String file = p.getFileName();
      if ("daticert.xml".equals(file)) {
        try (InputStream in = p.getInputStream()) {
          daticert = Daticert.parse(in.readAllBytes());
        }
      } else if ("postacert.eml".equals(file) && p instanceof MimeBodyPart mp) {
        try (InputStream in = mp.getRawInputStream()) {
          original = in.readAllBytes();
        }
      }
    }
    if (daticert == null) throw new IllegalArgumentException("the signed part has no daticert.xml");
    return new SignedContent(daticert, original);
  }

  // ---------------------------------------------------------------- documents

  private Outgoing document(DocumentKind kind, String messageId, String reference, String to, String from, String subject, String text,
      byte[] original, Daticert data) throws Exception {
    return document(kind, messageId, reference, to, from, subject, text, original, data, false);
  }

  /**
   * A provider document: text, the original as {@code postacert.eml} (when given), {@code daticert.xml}
   * (when given) in a multipart/mixed, clear-signed; headers the rules give every document.
   */
  private Outgoing document(DocumentKind kind, String messageId, String reference, String to, String from, String subject, String text,
      byte[] original, Daticert data, boolean securityError) throws Exception {
    MimeMultipart mixed = new MimeMultipart("mixed");
    MimeBodyPart textPart = new MimeBodyPart();
    textPart.setText(text, "UTF-8");
    mixed.addBodyPart(textPart);
    if (original != null) {
      MimeBodyPart eml = new MimeBodyPart();
      eml.setDataHandler(new DataHandler(new ByteArrayDataSource(original, "message/rfc822")));
      eml.setHeader("Content-Type", "message/rfc822; name=\"postacert.eml\"");
      eml.setDisposition(MimeBodyPart.INLINE);
      eml.setFileName("postacert.eml");
      // message/rfc822 takes no base64 (RFC 2046 §5.2.1): the original goes as it came, 8bit when it has such bytes
      eml.setHeader("Content-Transfer-Encoding", has8bit(original) ? "8bit" : "7bit");
      mixed.addBodyPart(eml);
    }
    if (data != null) {
      MimeBodyPart xml = new MimeBodyPart();
      xml.setDataHandler(new DataHandler(new ByteArrayDataSource(data.toXml(), "application/xml")));
      xml.setHeader("Content-Type", "application/xml; name=\"daticert.xml\"");
      xml.setDisposition(MimeBodyPart.INLINE);
      xml.setFileName("daticert.xml");
      xml.setHeader("Content-Transfer-Encoding", "base64");
      mixed.addBodyPart(xml);
    }
    SignedPart content = new SignedPart();
    content.setContent(mixed);
    content.finish();
    ByteArrayOutputStream part = new ByteArrayOutputStream(8192 + (original == null ? 0 : original.length + original.length / 8));
    content.writeTo(part);
    byte[] signedPart = ClearSigned.canonical(part.toByteArray());
    org.bouncycastle.cms.CMSSignedDataGenerator generator = new org.bouncycastle.cms.CMSSignedDataGenerator();
    generator.addSignerInfoGenerator(new org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder(DIGESTS)
        .build(new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder(signatureAlgorithm).setProvider(key.provider()).build(key.privateKey()),
            key.certificate()));
    generator.addCertificates(certificates);
    byte[] signature = generator.generate(new org.bouncycastle.cms.CMSProcessableByteArray(signedPart), false).getEncoded("DER");
    // The headers as Jakarta Mail writes them (addresses, encoded subject, date); the body is ours, byte for byte what was signed.
    MimeMessage message = new MimeMessage(SESSION);
    message.setHeader("Message-ID", messageId);
    message.setSentDate(Date.from(clock.instant()));
    message.setFrom(new InternetAddress(from));
    message.setRecipients(jakarta.mail.Message.RecipientType.TO, InternetAddress.parse(to));
    message.setSubject(kind.subjectPrefix + subject, "UTF-8");
    message.setHeader(kind.header, kind.value);
    if (reference != null) message.setHeader("X-Riferimento-Message-ID", reference);
    if (securityError) message.setHeader("X-VerificaSicurezza", "errore");
    if (kind == DocumentKind.TRANSPORT || kind == DocumentKind.ANOMALY) {
      String sender = from.substring(from.indexOf("Per conto di: ") + "Per conto di: ".length(), from.indexOf('"', from.indexOf("Per conto di: ")));
      message.setReplyTo(InternetAddress.parse(sender));
    }
    String boundary = "----=_pkibench_signed_" + java.util.UUID.randomUUID().toString().replace("-", "");
    message.setHeader("MIME-Version", "1.0");
    message.setHeader("Content-Type", ClearSigned.contentType(boundary));
    byte[] bytes = ClearSigned.message(java.util.Collections.list(message.getAllHeaderLines()), signedPart, signature, boundary);
    List<String> rcpts = new ArrayList<>();
    for (InternetAddress a : InternetAddress.parse(to)) rcpts.add(a.getAddress());
    return new Outgoing(kind, address(), rcpts, messageId, bytes);
  }

  /** The signed content, its headers (and those of every part inside) settled before it is written once and signed. */
  private static final class SignedPart extends MimeBodyPart {
    void finish() throws MessagingException {
      updateHeaders();
    }
  }

  private boolean certified(String address) {
    String d = address.substring(address.indexOf('@') + 1).toLowerCase(Locale.ROOT);
    return d.equals(domain) || index.knows(d);
  }

  private ZonedDateTime now() {
    return ZonedDateTime.ofInstant(clock.instant(), zone);
  }

  private static String day(ZonedDateTime t) {
    return DateTimeFormatter.ofPattern("dd/MM/yyyy").format(t);
  }

  private static String time(ZonedDateTime t) {
    return DateTimeFormatter.ofPattern("HH:mm:ss").format(t);
  }

  private static String zone(ZonedDateTime t) {
    return DateTimeFormatter.ofPattern("xx").format(t);
  }

  static boolean has8bit(byte[] bytes) {
    for (byte b : bytes) if (b < 0) return true;
    return false;
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.lines().findFirst().orElse(m);
  }

  @FunctionalInterface
  private interface Read<T> {
    T get() throws Exception;
  }

  /** A header a damaged message cannot give is read as {@code fallback}: the document about it is still issued. */
  private static <T> T safe(Read<T> read, T fallback) {
    try {
      T v = read.get();
      return v == null ? fallback : v;
    } catch (Exception e) {
      return fallback;
    }
  }
}
