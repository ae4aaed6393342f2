package io.pkibench.formats.pec;

import java.time.InstantSource;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Who a provider is, as every document it issues says: its domain and name (gestore-emittente), the
 * index of the providers it trusts, and the clock and zone its documents are dated in.
 */
public record ProviderIdentity(
    String domain, String name, ProviderIndex index, InstantSource clock, ZoneId zone) {
  /** The local part a provider signs and receives its own documents with. */
  public static final String PROVIDER_MAILBOX = "posta-certificata";

  public ProviderIdentity {
    domain = domain.toLowerCase(Locale.ROOT);
  }

  /**
   * {@code posta-certificata@DOMAIN}: the From of this provider's documents and the mailbox of the
   * receipts it is sent.
   */
  public String address() {
    return PROVIDER_MAILBOX + "@" + domain;
  }

  /**
   * The provider's id for the message of job {@code jobId}: its envelope's Message-ID, {@code
   * identificativo} in daticert.xml.
   */
  public String identificativo(String jobId) {
    return "opec." + jobId + "@" + domain;
  }

  /** Whether {@code address} is certified mail: of this provider or of one in the index. */
  boolean certified(String address) {
    String d = address.substring(address.indexOf('@') + 1).toLowerCase(Locale.ROOT);
    return d.equals(domain) || index.knows(d);
  }

  ZonedDateTime now() {
    return ZonedDateTime.ofInstant(clock.instant(), zone);
  }

  /** "Il giorno 25/11/2026 alle ore 10:00:00 (+0100)": how the documents' texts date an event. */
  static String when(ZonedDateTime t) {
    return "Il giorno "
        + DateTimeFormatter.ofPattern("dd/MM/yyyy").format(t)
        + " alle ore "
        + DateTimeFormatter.ofPattern("HH:mm:ss").format(t)
        + " ("
        + DateTimeFormatter.ofPattern("xx").format(t)
        + ")";
  }
}
