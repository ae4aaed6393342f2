package io.pkibench.formats.pec;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The incoming and delivery points of RFC 6109 (§3.2, §3.3): what arrives for this provider's users
 * is verified; a transport envelope is taken in charge, put in each recipient's mailbox and a
 * delivery receipt sent per recipient; anything unverified becomes an anomaly envelope. Also the
 * non-delivery notice for an envelope a peer refused for good.
 */
public final class IncomingPoint {
  private final ProviderIdentity identity;
  private final DocumentSigner signer;
  private final DocumentVerifier verifier;

  public IncomingPoint(
      ProviderIdentity identity, DocumentSigner signer, DocumentVerifier verifier) {
    this.identity = identity;
    this.signer = signer;
    this.verifier = verifier;
  }

  /**
   * A message from another provider (or anyone) for {@code rcpts}, all users of this provider: a
   * verified transport envelope gives a taking-charge receipt to its provider, the envelope itself
   * in each recipient's mailbox and a delivery receipt per recipient to its sender; a verified
   * receipt is delivered as it is; anything else an anomaly envelope per recipient, with {@code
   * X-VerificaSicurezza: errore} when it claimed to be a provider's document and its signature did
   * not check.
   */
  public List<Outgoing> receive(String jobId, String envelopeFrom, List<String> rcpts, byte[] raw)
      throws Exception {
    Verification v = verifier.verify(raw);
    List<Outgoing> out = new ArrayList<>();
    String messageId = MailReads.safe(() -> v.message().getMessageID(), "<" + jobId + "@unknown>");
    if (v.verified() && v.claimed().get() == DocumentKind.TRANSPORT) {
      SignedContent content = DocumentVerifier.contentOf(v.signedPart());
      Daticert sent = content.daticert();
      ZonedDateTime now = identity.now();
      String id = sent.identificativo();
      List<Daticert.Recipient> recipients =
          rcpts.stream().map(r -> new Daticert.Recipient(r, true)).toList();
      String senderProvider = ProviderIdentity.PROVIDER_MAILBOX + "@" + v.signedBy().get();
      Daticert taken =
          new Daticert(
              DocumentKind.TAKING_CHARGE.value,
              null,
              sent.mittente(),
              recipients,
              sent.risposte(),
              sent.oggetto(),
              identity.name(),
              now,
              id,
              sent.msgid(),
              null,
              null,
              null,
              null);
      String takenText =
          "Ricevuta di presa in carico\r\n\r\n"
              + ProviderIdentity.when(now)
              + " il messaggio\r\n\""
              + sent.oggetto()
              + "\" proveniente da \""
              + sent.mittente()
              + "\"\r\ned indirizzato a:\r\n"
              + String.join("\r\n", rcpts)
              + "\r\nè stato accettato dal sistema.\r\nIdentificativo messaggio: "
              + id
              + "\r\n";
      out.add(
          signer
              .sign(
                  DocumentKind.TAKING_CHARGE,
                  "<presa-in-carico." + jobId + "@" + identity.domain() + ">",
                  sent.msgid(),
                  senderProvider,
                  identity.address(),
                  sent.oggetto(),
                  takenText,
                  null,
                  taken)
              .to(List.of(senderProvider)));
      for (int i = 0; i < rcpts.size(); i++) {
        String rcpt = rcpts.get(i);
        out.add(new Outgoing(null, envelopeFrom, List.of(rcpt), messageId, raw));
        Daticert delivered =
            new Daticert(
                DocumentKind.DELIVERY.value,
                null,
                sent.mittente(),
                List.of(new Daticert.Recipient(rcpt, true)),
                sent.risposte(),
                sent.oggetto(),
                identity.name(),
                now,
                id,
                sent.msgid(),
                "completa",
                rcpt,
                null,
                null);
        String deliveredText =
            "Ricevuta di avvenuta consegna\r\n\r\n"
                + ProviderIdentity.when(now)
                + " il messaggio\r\n\""
                + sent.oggetto()
                + "\" proveniente da \""
                + sent.mittente()
                + "\"\r\ned indirizzato a \""
                + rcpt
                + "\"\r\nè stato consegnato nella casella di destinazione.\r\nIdentificativo messaggio: "
                + id
                + "\r\n";
        out.add(
            signer
                .sign(
                    DocumentKind.DELIVERY,
                    "<avvenuta-consegna." + jobId + "." + i + "@" + identity.domain() + ">",
                    sent.msgid(),
                    sent.mittente(),
                    identity.address(),
                    sent.oggetto(),
                    deliveredText,
                    content.original(),
                    delivered)
                .to(List.of(sent.mittente())));
      }
      return out;
    }
    if (v.verified()) {
      for (String rcpt : rcpts)
        out.add(new Outgoing(null, envelopeFrom, List.of(rcpt), messageId, raw));
      return out;
    }
    String subject = MailReads.safe(() -> v.message().getSubject(), "");
    String reference = MailReads.safe(() -> v.message().getMessageID(), null);
    ZonedDateTime now = identity.now();
    for (int i = 0; i < rcpts.size(); i++) {
      String rcpt = rcpts.get(i);
      String text =
          "Anomalia nel messaggio\r\n\r\n"
              + ProviderIdentity.when(now)
              + " è stato ricevuto\r\n"
              + "il messaggio \""
              + subject
              + "\" proveniente da \""
              + envelopeFrom
              + "\"\r\nindirizzato a:\r\n"
              + rcpt
              + "\r\nTali dati non sono stati certificati per il seguente errore:\r\n"
              + v.problem()
              + "\r\nIl messaggio originale è incluso in allegato.\r\n";
      Outgoing anomaly =
          signer.sign(
              DocumentKind.ANOMALY,
              "<errore." + jobId + "." + i + "@" + identity.domain() + ">",
              reference,
              rcpt,
              "\"Per conto di: " + envelopeFrom + "\" <" + identity.address() + ">",
              subject,
              text,
              raw,
              null,
              v.securityFailure());
      out.add(anomaly);
    }
    return out;
  }

  /**
   * The non-delivery notice ({@code avviso di mancata consegna}) to the sender of a transport
   * envelope this provider issued and the recipients' provider refused for good ({@code reason},
   * its SMTP reply); {@code noSuchRecipient} when the refusal named the mailbox (550), {@code
   * errore} no-dest.
   */
  public Outgoing nonDelivery(
      String jobId, byte[] envelope, List<String> rcpts, String reason, boolean noSuchRecipient)
      throws Exception {
    Daticert sent = DocumentVerifier.signedContent(envelope).daticert();
    ZonedDateTime now = identity.now();
    Daticert data =
        new Daticert(
            DocumentKind.NON_DELIVERY.value,
            noSuchRecipient ? "no-dest" : "altro",
            sent.mittente(),
            rcpts.stream().map(r -> new Daticert.Recipient(r, true)).toList(),
            sent.risposte(),
            sent.oggetto(),
            identity.name(),
            now,
            sent.identificativo(),
            sent.msgid(),
            null,
            null,
            null,
            reason);
    String text =
        "Avviso di mancata consegna\r\n\r\n"
            + ProviderIdentity.when(now)
            + " nel messaggio\r\n\""
            + sent.oggetto()
            + "\" proveniente da \""
            + sent.mittente()
            + "\"\r\ned indirizzato a:\r\n"
            + String.join("\r\n", rcpts)
            + "\r\nè stato rilevato un errore di consegna: "
            + reason
            + "\r\nIl messaggio non è stato consegnato.\r\nIdentificativo messaggio: "
            + sent.identificativo()
            + "\r\n";
    return signer
        .sign(
            DocumentKind.NON_DELIVERY,
            "<errore-consegna." + jobId + "@" + identity.domain() + ">",
            sent.msgid(),
            sent.mittente(),
            identity.address(),
            sent.oggetto(),
            text,
            null,
            data)
        .to(List.of(sent.mittente()));
  }
}
