package io.pkibench.formats.pec;

import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The access point of RFC 6109 (§3.1): a message a user of this provider submits becomes an
 * acceptance receipt to its sender and a transport envelope to its recipients, or a non-acceptance
 * receipt naming each formal problem.
 */
public final class AccessPoint {
  private final ProviderIdentity identity;
  private final DocumentSigner signer;

  public AccessPoint(ProviderIdentity identity, DocumentSigner signer) {
    this.identity = identity;
    this.signer = signer;
  }

  /**
   * A message a user of this provider submitted ({@code envelopeFrom} on SMTP, to {@code rcpts}):
   * the acceptance receipt to the sender and the transport envelope to the recipients, or the
   * non-acceptance receipt saying each formal problem.
   */
  public List<Outgoing> accept(String jobId, String envelopeFrom, List<String> rcpts, byte[] raw)
      throws Exception {
    List<String> problems = new ArrayList<>();
    MimeMessage message = readable(raw, problems);
    if (message != null) problems.addAll(formalProblems(message, envelopeFrom, rcpts));
    String subject = message == null ? "" : MailReads.safe(() -> message.getSubject(), "");
    String msgid = message == null ? null : MailReads.safe(() -> message.getMessageID(), null);
    ZonedDateTime now = identity.now();
    List<Daticert.Recipient> recipients =
        rcpts.stream().map(r -> new Daticert.Recipient(r, identity.certified(r))).toList();
    String id = identity.identificativo(jobId);
    if (!problems.isEmpty())
      return List.of(nonAcceptance(jobId, envelopeFrom, rcpts, subject, msgid, problems));
    String from = envelopeFrom;
    Daticert accepted =
        new Daticert(
            DocumentKind.ACCEPTANCE.value,
            null,
            from,
            recipients,
            from,
            subject,
            identity.name(),
            now,
            id,
            msgid,
            null,
            null,
            null,
            null);
    String rcptText =
        String.join(
            "\r\n",
            rcpts.stream()
                .map(
                    r ->
                        r
                            + " (\"posta "
                            + (identity.certified(r) ? "certificata" : "ordinaria")
                            + "\")")
                .toList());
    String acceptanceText =
        "Ricevuta di accettazione\r\n\r\n"
            + ProviderIdentity.when(now)
            + " il messaggio\r\n\""
            + subject
            + "\" proveniente da \""
            + from
            + "\"\r\ned indirizzato a:\r\n"
            + rcptText
            + "\r\nè stato accettato dal sistema ed inoltrato.\r\nIdentificativo messaggio: "
            + id
            + "\r\n";
    Outgoing acceptance =
        signer.sign(
            DocumentKind.ACCEPTANCE,
            "<accettazione." + jobId + "@" + identity.domain() + ">",
            msgid,
            from,
            identity.address(),
            subject,
            acceptanceText,
            null,
            accepted);
    Daticert transport =
        new Daticert(
            DocumentKind.TRANSPORT.value,
            null,
            from,
            recipients,
            MailReads.safe(() -> replyTo(message), from),
            subject,
            identity.name(),
            now,
            id,
            msgid,
            null,
            null,
            null,
            null);
    String envelopeText =
        "Messaggio di posta certificata\r\n\r\n"
            + ProviderIdentity.when(now)
            + " il messaggio\r\n\""
            + subject
            + "\" è stato inviato da \""
            + from
            + "\"\r\nindirizzato a:\r\n"
            + String.join("\r\n", rcpts)
            + "\r\nIl messaggio originale è incluso in allegato.\r\nIdentificativo messaggio: "
            + id
            + "\r\n";
    Outgoing envelope =
        signer.sign(
            DocumentKind.TRANSPORT,
            "<" + id + ">",
            msgid,
            String.join(", ", rcpts),
            "\"Per conto di: " + from + "\" <" + identity.address() + ">",
            subject,
            envelopeText,
            raw,
            transport);
    return List.of(acceptance, envelope.to(rcpts));
  }

  /**
   * The non-acceptance receipt to {@code envelopeFrom} naming each problem: for a formal problem,
   * and for a submission the provider took (250) but can never process, so that its sender is told.
   */
  public Outgoing nonAcceptance(
      String jobId,
      String envelopeFrom,
      List<String> rcpts,
      String subject,
      String msgid,
      List<String> problems)
      throws Exception {
    ZonedDateTime now = identity.now();
    List<Daticert.Recipient> recipients =
        rcpts.stream().map(r -> new Daticert.Recipient(r, identity.certified(r))).toList();
    String id = identity.identificativo(jobId);
    Daticert data =
        new Daticert(
            DocumentKind.NON_ACCEPTANCE.value,
            "altro",
            envelopeFrom,
            recipients.isEmpty() ? List.of(new Daticert.Recipient("(none)", false)) : recipients,
            envelopeFrom,
            subject,
            identity.name(),
            now,
            id,
            msgid,
            null,
            null,
            null,
            String.join("; ", problems));
    String text =
        "Avviso di non accettazione\r\n\r\n"
            + ProviderIdentity.when(now)
            + " nel messaggio\r\n\""
            + subject
            + "\" proveniente da \""
            + envelopeFrom
            + "\"\r\nsono stati rilevati problemi che ne impediscono l'accettazione:\r\n"
            + String.join("\r\n", problems)
            + "\r\nIl messaggio non è stato accettato.\r\nIdentificativo messaggio: "
            + id
            + "\r\n";
    return signer.sign(
        DocumentKind.NON_ACCEPTANCE,
        "<non-accettazione." + jobId + "@" + identity.domain() + ">",
        msgid,
        envelopeFrom,
        identity.address(),
        subject,
        text,
        null,
        data);
  }

  /** The message, or null with the reason in {@code problems}. */
  private MimeMessage readable(byte[] raw, List<String> problems) {
    try {
      MimeMessage message = new MimeMessage(PecProvider.SESSION, new ByteArrayInputStream(raw));
      message
          .getAllHeaders(); // the headers are read now, so that a damaged block is a problem here
      // rather than later
      return message;
    } catch (MessagingException e) {
      problems.add("the message cannot be read as RFC 5322 mail (" + e.getMessage() + ")");
      return null;
    }
  }

  private static String replyTo(MimeMessage message) throws MessagingException {
    Address[] replyTo = message.getReplyTo();
    return replyTo == null || replyTo.length == 0
        ? null
        : ((InternetAddress) replyTo[0]).getAddress();
  }

  /**
   * What the access point refuses a message for; every problem, each in words a sender can act on.
   */
  List<String> formalProblems(MimeMessage message, String envelopeFrom, List<String> rcpts)
      throws MessagingException {
    List<String> problems = new ArrayList<>();
    if (message.getMessageID() == null || message.getMessageID().isBlank()) {
      problems.add(
          "the message has no Message-ID header (RFC 5322 §3.6.4): its receipts could not be correlated");
    }
    String[] from = message.getHeader("From");
    if (from == null || from.length != 1) {
      problems.add(
          "the message needs exactly one From header, it has " + (from == null ? 0 : from.length));
    } else {
      try {
        InternetAddress[] parsed = InternetAddress.parseHeader(from[0], true);
        if (parsed.length != 1) problems.add("From must name one address, not " + parsed.length);
        else if (!parsed[0].getAddress().equalsIgnoreCase(envelopeFrom)) {
          problems.add(
              "From <"
                  + parsed[0].getAddress()
                  + "> is not the sender <"
                  + envelopeFrom
                  + "> the provider accepted the message from");
        }
      } catch (AddressException e) {
        problems.add("From is not an address: " + e.getMessage());
      }
    }
    if (message.getHeader("Bcc") != null)
      problems.add("PEC does not carry blind copies: remove the Bcc header");
    if (rcpts.isEmpty()) problems.add("the message has no recipient");
    return problems;
  }
}
