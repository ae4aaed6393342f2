package io.pkibench.formats.pec;

import java.util.Optional;

/**
 * The documents a PEC provider issues (DPCM 2 Nov 2005 technical rules; RFC 6109 §3): each marked
 * by one header ({@code X-Ricevuta} for receipts, {@code X-Trasporto} for envelopes), a subject
 * prefix, and the {@code tipo} its {@code daticert.xml} carries (none for the anomaly envelope,
 * which has no certified data).
 */
public enum DocumentKind {
  ACCEPTANCE("X-Ricevuta", "accettazione", "ACCETTAZIONE: "),
  NON_ACCEPTANCE("X-Ricevuta", "non-accettazione", "AVVISO DI NON ACCETTAZIONE: "),
  TAKING_CHARGE("X-Ricevuta", "presa-in-carico", "PRESA IN CARICO: "),
  DELIVERY("X-Ricevuta", "avvenuta-consegna", "CONSEGNA: "),
  NON_DELIVERY("X-Ricevuta", "errore-consegna", "AVVISO DI MANCATA CONSEGNA: "),
  TRANSPORT("X-Trasporto", "posta-certificata", "POSTA CERTIFICATA: "),
  ANOMALY("X-Trasporto", "errore", "ANOMALIA MESSAGGIO: ");

  public final String header;
  public final String value;
  public final String subjectPrefix;

  DocumentKind(String header, String value, String subjectPrefix) {
    this.header = header;
    this.value = value;
    this.subjectPrefix = subjectPrefix;
  }

  /** The {@code tipo} of this document's daticert.xml; the anomaly envelope carries none. */
  public Optional<String> daticertType() {
    return this == ANOMALY ? Optional.empty() : Optional.of(value);
  }

  /** The kind a message's headers declare, or empty for a message no provider issued. */
  public static Optional<DocumentKind> of(String ricevuta, String trasporto) {
    for (DocumentKind k : values()) {
      String v = k.header.equals("X-Ricevuta") ? ricevuta : trasporto;
      if (v != null && v.strip().equalsIgnoreCase(k.value)) return Optional.of(k);
    }
    return Optional.empty();
  }
}
