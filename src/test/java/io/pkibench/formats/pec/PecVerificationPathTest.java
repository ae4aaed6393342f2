package io.pkibench.formats.pec;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The incoming path checks the signer's certificate as the seed's provider did: path to the root,
 * validity, revocation.
 */
class PecVerificationPathTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  @Test
  void pathCheck_revokedListedExpiredAndForeign_eachRefusedWithItsReason() throws Exception {
    CertificatePathCheck check = CertificatePathCheck.of(keys.pki);
    assertNull(check.problem(keys.pki.certificate("signer-rsa2048-1"), new Date()));
    String revoked = check.problem(keys.pki.certificate("signer-rsa2048-revoked"), new Date());
    assertTrue(
        revoked != null && revoked.toLowerCase(java.util.Locale.ROOT).contains("revoked"),
        String.valueOf(revoked));
    String expired =
        check.problem(
            keys.pki.certificate("signer-rsa2048-1"),
            new Date(System.currentTimeMillis() + 50L * 365 * 86_400_000));
    assertTrue(expired != null && expired.contains("does not validate"), String.valueOf(expired));
    CertificatePathCheck otherRoot =
        new CertificatePathCheck(
            List.of(keys.pki.certificate("intermediate-b")), List.of(), List.of());
    assertTrue(
        otherRoot.problem(keys.pki.certificate("signer-rsa2048-1"), new Date()) != null,
        "a signer outside the trusted roots");
  }

  /**
   * An envelope signed by a provider the index lists, whose certificate is revoked, becomes an
   * anomaly, not a delivery.
   */
  @Test
  void receive_envelopeOfARevokedProvider_anomalyNamingTheCertificate() throws Exception {
    var revokedKey = keys.keys.key("signer-rsa2048-revoked");
    var goodKey = keys.keys.key("signer-rsa2048-2");
    ProviderIndex index =
        new ProviderIndex(
                Map.of("pec1.test", revokedKey.certificate(), "pec2.test", goodKey.certificate()))
            .withPathCheck(CertificatePathCheck.of(keys.pki));
    var clock = InstantSource.system();
    PecProvider pec1 =
        new PecProvider("pec1.test", "uno", revokedKey, index, clock, ZoneId.of("Europe/Rome"));
    PecProvider pec2 =
        new PecProvider("pec2.test", "due", goodKey, index, clock, ZoneId.of("Europe/Rome"));
    byte[] message =
        PecMessages.message(
            "user1@pec1.test", "user1@pec2.test", "<r.1@pec1.test>", "revoked", 4096, 1);
    byte[] envelope =
        pec1.accept("j1", "user1@pec1.test", List.of("user1@pec2.test"), message).stream()
            .filter(o -> o.kind() == DocumentKind.TRANSPORT)
            .findFirst()
            .orElseThrow()
            .bytes();
    Verification v = pec2.verify(envelope);
    assertFalse(v.verified(), "a revoked provider's envelope must not verify");
    assertTrue(
        v.problem().contains("is not trusted") && v.problem().contains("pec1.test"), v.problem());
    List<Outgoing> out =
        pec2.receive("j1", "posta-certificata@pec1.test", List.of("user1@pec2.test"), envelope);
    assertTrue(
        out.stream().allMatch(o -> o.kind() == DocumentKind.ANOMALY),
        out.stream().map(Outgoing::describe).toList().toString());
  }
}
