package io.pkibench.formats.pec;

import jakarta.mail.internet.MimeMessage;
import java.util.Optional;

/**
 * What the incoming point found in a message: the kind of provider document it claims to be (empty
 * for ordinary mail), whether its S/MIME signature verified with a certificate of the provider
 * index (and which provider's), and, when it did not, why in words; {@code signedPart} is the
 * content the signature covers, canonical, as it came (null when it did not verify), so that it is
 * not split again.
 */
public record Verification(
    Optional<DocumentKind> claimed,
    Optional<String> signedBy,
    String problem,
    MimeMessage message,
    byte[] signedPart) {
  public boolean verified() {
    return signedBy.isPresent() && problem == null;
  }

  /**
   * A message that claims to be a provider's but whose signature did not check: the anomaly gets
   * {@code X-VerificaSicurezza: errore}.
   */
  public boolean securityFailure() {
    return claimed.isPresent() && !verified();
  }
}
