package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.testing.TestKeys;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The issuers' root fetched again (a Pebble started again has a new one): a chain that fails the
 * root held passes only against a different root the source now serves, and is checked against it
 * whole; the same root served again fails the chain as before; fetches are at most once a second.
 */
class IssuedCheckTest {
  @TempDir static Path dir;
  static TestKeys keys;
  static SigningKey leaf;

  @BeforeAll
  static void pki() throws Exception {
    keys = TestKeys.in(dir);
    leaf = new SoftwareKeySource(() -> keys.pki, ProviderChoice.JDK).key("tls-server");
  }

  @Test
  void chainFailsTheHeldRoot_newRootServed_passesAndIsCounted() throws Exception {
    X509Certificate stale = keys.pki.certificate("intermediate-b"); // not tls-server's anchor
    X509Certificate served = keys.pki.certificate("root-ca");
    IssuedCheck check = new IssuedCheck(stale, () -> served);
    check.check(leaf.chain(), leaf.chain().get(0).getPublicKey(), List.of(), Instant.now());
    assertEquals(1, check.rootsFetchedAgain());
    assertEquals(served, check.issuerRoot());
  }

  @Test
  void chainFailsTheHeldRoot_sameRootServedAgain_failsAndFetchesAtMostOnceASecond() {
    X509Certificate stale = keys.pki.certificate("intermediate-b");
    AtomicInteger fetches = new AtomicInteger();
    IssuedCheck check =
        new IssuedCheck(
            stale,
            () -> {
              fetches.incrementAndGet();
              return stale;
            });
    for (int i = 0; i < 3; i++) {
      refusesTheChain(check);
    }
    assertEquals(1, fetches.get(), "three failures within a second, one fetch");
    assertEquals(0, check.rootsFetchedAgain());
  }

  @Test
  void chainFailsTheHeldRoot_newRootServedItDoesNotChainToEither_fails() {
    IssuedCheck check =
        new IssuedCheck(
            keys.pki.certificate("intermediate-b"), () -> keys.pki.certificate("tls-client"));
    refusesTheChain(check);
    // the CA's root now is the one it serves, though this chain fails it too
    assertEquals(1, check.rootsFetchedAgain(), "the new root fetched and counted");
    assertEquals(keys.pki.certificate("tls-client"), check.issuerRoot(), "and held from now on");
  }

  @Test
  void anotherKeyThanTheCsrs_failsWithoutFetching() {
    AtomicInteger fetches = new AtomicInteger();
    IssuedCheck check =
        new IssuedCheck(
            keys.pki.certificate("intermediate-b"),
            () -> {
              fetches.incrementAndGet();
              return keys.pki.certificate("root-ca");
            });
    var other = keys.pki.certificate("tls-client").getPublicKey();
    var e =
        assertThrows(
            CertificateException.class,
            () -> check.check(leaf.chain(), other, List.of(), Instant.now()));
    assertTrue(e.getMessage().contains("another key than the CSR's"), e.getMessage());
    assertEquals(0, fetches.get());
  }

  /** {@code check} refuses the leaf's chain as not chaining to the issuers' root. */
  /**
   * After a chain validated, the next one under the same issuers is validated from its issuer on,
   * not skipped: a leaf under the same issuer's name but signed by another key fails, and so does
   * the good chain at a time it is not valid.
   */
  @Test
  void sameIssuersAgain_theLeafIsStillValidated() throws Exception {
    X509Certificate root = keys.pki.certificate("root-ca");
    IssuedCheck check = new IssuedCheck(root);
    List<X509Certificate> good = leaf.chain();
    check.check(good, good.get(0).getPublicKey(), List.of(), Instant.now());
    check.check(good, good.get(0).getPublicKey(), List.of(), Instant.now()); // the cached way

    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair forger = g.generateKeyPair();
    X509Certificate issuer = good.get(1);
    X509Certificate forged =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        issuer.getSubjectX500Principal(),
                        BigInteger.valueOf(4242),
                        Date.from(Instant.now().minusSeconds(60)),
                        Date.from(Instant.now().plusSeconds(3600)),
                        good.get(0).getSubjectX500Principal(),
                        forger.getPublic())
                    .build(
                        new JcaContentSignerBuilder("SHA256withECDSA").build(forger.getPrivate())));
    List<X509Certificate> forgedChain = new ArrayList<>(good);
    forgedChain.set(0, forged);
    var e =
        assertThrows(
            CertificateException.class,
            () -> check.check(forgedChain, forger.getPublic(), List.of(), Instant.now()));
    assertTrue(e.getMessage().contains("does not chain to the issuers' root"), e.getMessage());

    Instant later = good.get(0).getNotAfter().toInstant().plusSeconds(60);
    var expired =
        assertThrows(
            CertificateException.class,
            () -> check.check(good, good.get(0).getPublicKey(), List.of(), later));
    assertTrue(expired.getMessage().contains("does not chain"), expired.getMessage());
  }

  private static void refusesTheChain(IssuedCheck check) {
    var e =
        assertThrows(
            CertificateException.class,
            () ->
                check.check(
                    leaf.chain(), leaf.chain().get(0).getPublicKey(), List.of(), Instant.now()));
    assertTrue(e.getMessage().contains("does not chain to the issuers' root"), e.getMessage());
  }
}
