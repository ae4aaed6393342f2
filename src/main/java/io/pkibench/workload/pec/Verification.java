package io.pkibench.workload.pec;

import jakarta.mail.internet.MimeMessage;
import java.util.Optional;

/**
 * What the incoming point found in a message: the kind of provider document it claims to be (empty
 * for ordinary mail), whether its S/MIME signature verified with a certificate of the provider index
 * (and which provider's), and, when it did not, why in words; {@code signed} is the signature as parsed (null
 * without one), so that the content is not parsed a second time.
 */
public record Verification(Optional<DocumentKind> claimed, Optional<String> signedBy, String problem, MimeMessage message,
    org.bouncycastle.mail.smime.SMIMESigned signed) {
  public boolean verified() {
    return signedBy.isPresent() && problem == null;
  }

  /** A message that claims to be a provider's but whose signature did not check: the anomaly gets {@code X-VerificaSicurezza: errore}. */
  public boolean securityFailure() {
    return claimed.isPresent() && !verified();
  }
}
