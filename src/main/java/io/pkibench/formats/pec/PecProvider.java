package io.pkibench.formats.pec;

import io.pkibench.keys.SigningKey;
import jakarta.mail.Session;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.List;
import java.util.Properties;

/**
 * One PEC provider: its roles of RFC 6109 on one identity and key. The access point ({@link
 * #accept}: a user's message becomes an acceptance receipt and a transport envelope, or a
 * non-acceptance), the incoming and delivery points ({@link #receive}: a verified envelope becomes
 * a taking-charge receipt, the envelope in each recipient's mailbox and a delivery receipt per
 * recipient; anything unverified an anomaly envelope). Every document it issues is S/MIME
 * clear-signed by its {@link DocumentSigner}. No I/O: the server spools and carries what this
 * returns, the workloads measure it in memory.
 *
 * <p>Ids are derived from the caller's job id, so that a job done again after a crash issues the
 * same Message-IDs and the receiving side can drop the repeat.
 */
public final class PecProvider {
  /** The local part a provider signs and receives its own documents with. */
  public static final String PROVIDER_MAILBOX = ProviderIdentity.PROVIDER_MAILBOX;

  /**
   * One session for reading and writing messages: it holds only properties (none here), so every
   * provider and call shares it.
   */
  public static final Session SESSION = Session.getInstance(new Properties());

  private final ProviderIdentity identity;
  private final AccessPoint access;
  private final IncomingPoint incoming;
  private final DocumentVerifier verifier;

  public PecProvider(
      String domain,
      String name,
      SigningKey key,
      ProviderIndex index,
      InstantSource clock,
      ZoneId zone) {
    this.identity = new ProviderIdentity(domain, name, index, clock, zone);
    DocumentSigner signer = new DocumentSigner(identity, key);
    this.verifier = new DocumentVerifier(index);
    this.access = new AccessPoint(identity, signer);
    this.incoming = new IncomingPoint(identity, signer, verifier);
  }

  public String domain() {
    return identity.domain();
  }

  /**
   * {@code posta-certificata@DOMAIN}: the From of this provider's documents and the mailbox of the
   * receipts it is sent.
   */
  public String address() {
    return identity.address();
  }

  public ProviderIndex index() {
    return identity.index();
  }

  /**
   * The provider's id for the message of job {@code jobId}: its envelope's Message-ID, {@code
   * identificativo} in daticert.xml.
   */
  public String identificativo(String jobId) {
    return identity.identificativo(jobId);
  }

  /** See {@link AccessPoint#accept}. */
  public List<Outgoing> accept(String jobId, String envelopeFrom, List<String> rcpts, byte[] raw)
      throws Exception {
    return access.accept(jobId, envelopeFrom, rcpts, raw);
  }

  /** See {@link AccessPoint#nonAcceptance}. */
  public Outgoing nonAcceptance(
      String jobId,
      String envelopeFrom,
      List<String> rcpts,
      String subject,
      String msgid,
      List<String> problems)
      throws Exception {
    return access.nonAcceptance(jobId, envelopeFrom, rcpts, subject, msgid, problems);
  }

  /** See {@link IncomingPoint#receive}. */
  public List<Outgoing> receive(String jobId, String envelopeFrom, List<String> rcpts, byte[] raw)
      throws Exception {
    return incoming.receive(jobId, envelopeFrom, rcpts, raw);
  }

  /** See {@link IncomingPoint#nonDelivery}. */
  public Outgoing nonDelivery(
      String jobId, byte[] envelope, List<String> rcpts, String reason, boolean noSuchRecipient)
      throws Exception {
    return incoming.nonDelivery(jobId, envelope, rcpts, reason, noSuchRecipient);
  }

  /** See {@link DocumentVerifier#verify}. */
  public Verification verify(byte[] raw) {
    return verifier.verify(raw);
  }

  /**
   * The daticert.xml and postacert.eml of a signed document (the signature is not checked here; see
   * {@link #verify}).
   */
  public static SignedContent signedContent(byte[] raw) throws Exception {
    return DocumentVerifier.signedContent(raw);
  }
}
