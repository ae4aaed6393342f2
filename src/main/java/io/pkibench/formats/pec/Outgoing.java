package io.pkibench.formats.pec;

import java.util.List;

/**
 * A message a provider's step produces for others to carry: who it is from on the SMTP envelope,
 * whom to ({@code to}, all in one domain once routed), its bytes, its Message-ID (the receiving
 * side's duplicate key) and what it is ({@code kind} null when a message is passed on unchanged,
 * e.g. a verified envelope into its recipient's mailbox).
 */
public record Outgoing(
    DocumentKind kind, String envelopeFrom, List<String> to, String messageId, byte[] bytes) {
  public Outgoing {
    to = List.copyOf(to);
  }

  /**
   * The same message to other recipients (a receipt goes to the sender or its provider, whatever
   * the document's To says).
   */
  public Outgoing to(List<String> recipients) {
    return new Outgoing(kind, envelopeFrom, recipients, messageId, bytes);
  }

  public String describe() {
    return (kind == null ? "message" : kind.value)
        + " "
        + messageId
        + " to "
        + String.join(",", to);
  }
}
