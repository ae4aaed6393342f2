package io.pkibench.formats.pec;

import io.pkibench.pki.TestPki;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;

/**
 * The two providers pkibench's own PEC set-up runs (the workloads, {@code serve pec}, the study):
 * their domains and the test PKI's keys that sign for them.
 */
public final class TestProviders {
  public static final String SENDER_DOMAIN = "pec1.test";
  public static final String RECIPIENT_DOMAIN = "pec2.test";
  public static final String SENDER_KEY = "signer-rsa2048-1";
  public static final String RECIPIENT_KEY = "signer-rsa2048-2";

  /**
   * The zone PEC documents give their times in: Italy's legal time (the rules date receipts in it);
   * {@code serve pec --zone} changes it.
   */
  public static final ZoneId ZONE = ZoneId.of("Europe/Rome");

  private TestProviders() {}

  /**
   * The index the providers use when none is given: both domains with their keys' certificates,
   * each document's signer also checked for its path to the test PKI's root, validity and
   * revocation (its CRLs).
   */
  public static ProviderIndex index(TestPki pki) {
    return new ProviderIndex(
            Map.of(
                SENDER_DOMAIN,
                pki.certificate(SENDER_KEY),
                RECIPIENT_DOMAIN,
                pki.certificate(RECIPIENT_KEY)))
        .withPathCheck(CertificatePathCheck.of(pki));
  }

  /** The signing key of a test domain; empty for any other domain. */
  public static Optional<String> keyOf(String domain) {
    return switch (domain) {
      case SENDER_DOMAIN -> Optional.of(SENDER_KEY);
      case RECIPIENT_DOMAIN -> Optional.of(RECIPIENT_KEY);
      default -> Optional.empty();
    };
  }
}
