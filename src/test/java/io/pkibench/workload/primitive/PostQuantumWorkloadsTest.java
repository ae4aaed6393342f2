package io.pkibench.workload.primitive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestProvider;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The post-quantum algorithms through the workloads and the engine, with each provider that has
 * them, each operation checked by another provider where one exists; bad inputs counted as failures
 * with their reason; an unknown algorithm answered with the list.
 */
class PostQuantumWorkloadsTest {
  @TempDir static Path tmp;
  static TestPki pki;

  @BeforeAll
  static void createPki() {
    TestProvider.requireAccp();
    pki =
        TestPki.init(
            tmp.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
  }

  static MeasuredRun measure(
      String workload, Map<String, String> params, KeySource keys, boolean verify)
      throws Exception {
    return measure(workload, params, keys, verify, Duration.ofMillis(120));
  }

  /**
   * Failures need a few operations to show the run goes on: longer, as the first operation pays for
   * class loading.
   */
  static MeasuredRun measure(
      String workload,
      Map<String, String> params,
      KeySource keys,
      boolean verify,
      Duration duration)
      throws Exception {
    WorkloadFactory factory = WorkloadCatalog.builtIn().find(workload).orElseThrow();
    try (Workload w =
        factory.create(
            new WorkloadContext(keys, verify),
            Params.resolve(workload, factory.params(), params))) {
      return MeasuredRun.of(workload + " " + params + " on " + keys.describe(), w, duration);
    }
  }

  static final Duration FAILING = Duration.ofMillis(400);

  static KeySource keys(ProviderChoice choice) {
    return new SoftwareKeySource(() -> pki, choice);
  }

  @Test
  void signVerifyKeygen_mlDsaEveryProvider_everyOperationSucceedsCheckedByAnother()
      throws Exception {
    for (ProviderChoice choice : ProviderChoice.values()) {
      for (String alg : List.of("ml-dsa-44", "ml-dsa-65", "ml-dsa-87")) {
        measure("sign", Map.of("alg", alg, "size", "1k"), keys(choice), true)
            .assertEverySucceeded();
        measure("verify", Map.of("alg", alg, "size", "1k"), keys(choice), true)
            .assertEverySucceeded();
      }
      measure("keygen", Map.of("alg", "ml-dsa-65"), keys(choice), true).assertEverySucceeded();
    }
  }

  @Test
  void signVerify_slhDsa_bouncyCastleRunsItTheOthersSaySo() throws Exception {
    for (String alg : List.of("slh-dsa-sha2-128s", "slh-dsa-sha2-128f")) {
      // no second SLH-DSA implementation to check with: --verify names that, so off here
      measure("sign", Map.of("alg", alg, "size", "1k"), keys(ProviderChoice.BC), false)
          .assertEverySucceeded();
      measure("verify", Map.of("alg", alg), keys(ProviderChoice.BC), false).assertEverySucceeded();
      var noSecond =
          assertThrows(
              Exception.class,
              () -> measure("verify", Map.of("alg", alg), keys(ProviderChoice.BC), true));
      assertTrue(
          noSecond.getMessage().contains("no provider other than BC offers Signature SLH-DSA"),
          noSecond.getMessage());
      for (ProviderChoice lacking : List.of(ProviderChoice.JDK, ProviderChoice.ACCP)) {
        var e =
            assertThrows(
                Exception.class, () -> measure("sign", Map.of("alg", alg), keys(lacking), false));
        assertTrue(
            e.getMessage().contains("has no Signature SLH-DSA")
                && e.getMessage().contains("--keys software:"),
            e.getMessage());
      }
    }
  }

  @Test
  void kem_everyMechanismEveryProviderThatHasIt_bothSidesAgreeCheckedByAnother() throws Exception {
    for (ProviderChoice choice : List.of(ProviderChoice.JDK, ProviderChoice.BC)) {
      for (String alg : KemAlgorithm.flags()) {
        measure("kem", Map.of("alg", alg), keys(choice), true).assertEverySucceeded();
      }
      for (String side : List.of("encaps", "decaps")) {
        measure("kem", Map.of("alg", "ml-kem-768", "side", side), keys(choice), true)
            .assertEverySucceeded();
      }
      measure("keygen", Map.of("alg", "ml-kem-768"), keys(choice), true).assertEverySucceeded();
      measure("keygen", Map.of("alg", "x25519"), keys(choice), true).assertEverySucceeded();
    }
    var e =
        assertThrows(
            NoSuchAlgorithmException.class,
            () -> measure("kem", Map.of("alg", "ml-kem-768"), keys(ProviderChoice.ACCP), false));
    assertTrue(e.getMessage().contains("provider accp has no KEM ML-KEM-768"), e.getMessage());
  }

  /**
   * Plain --keys software is ACCP here, which has no ML-KEM and no SLH-DSA: those run on the next
   * provider that has them (the JDK, else BouncyCastle), so the 'run kem -p alg=ml-kem-768'
   * works as written; ML-DSA stays on ACCP.
   */
  @Test
  void plainSoftwareKeys_algorithmAccpLacks_runsOnTheJdkOrBouncyCastle() throws Exception {
    var plain =
        KeySources.open("software", () -> pki, null, Map.of(), InstantSource.system(), line -> {});
    assertEquals("SunJCE", plain.provider("KEM", "ML-KEM-768").getName());
    assertEquals("BC", plain.provider("Signature", "SLH-DSA").getName());
    assertEquals("AmazonCorrettoCryptoProvider", plain.provider("Signature", "ML-DSA").getName());
    measure("kem", Map.of("alg", "ml-kem-768"), plain, true).assertEverySucceeded();
    measure("sign", Map.of("alg", "slh-dsa-sha2-128f"), plain, false, Duration.ofMillis(400))
        .assertEverySucceeded(); // no second SLH-DSA provider to verify
  }

  @Test
  void verify_badSignatures_everyOperationCountedFailedWithItsReason() throws Exception {
    for (ProviderChoice choice : ProviderChoice.values()) {
      for (String input : List.of("tampered", "truncated", "other-set")) {
        MeasuredRun run =
            measure(
                "verify", Map.of("alg", "ml-dsa-65", "input", input), keys(choice), false, FAILING);
        assertTrue(run.started() > 0 && run.failed() == run.started(), run.toString());
        // a provider may throw on a malformed signature rather than answer false: either is
        // counted, each with a reason
        run.errors().keySet().forEach(cause -> assertTrue(!cause.isBlank(), run.toString()));
        if (input.equals("tampered"))
          run.assertEveryFailedWith("a tampered ml-dsa-65 signature was refused");
      }
    }
    measure(
            "verify",
            Map.of("alg", "slh-dsa-sha2-128f", "input", "tampered"),
            keys(ProviderChoice.BC),
            false,
            FAILING)
        .assertEveryFailedWith("a tampered slh-dsa-sha2-128f signature was refused");
  }

  @Test
  void kem_badCiphertexts_everyOperationCountedFailedWithItsReason() throws Exception {
    for (ProviderChoice choice : List.of(ProviderChoice.JDK, ProviderChoice.BC)) {
      // ML-KEM answers a tampered ciphertext with an unrelated secret (implicit rejection): the
      // check catches it
      measure("kem", Map.of("alg", "ml-kem-768", "input", "tampered"), keys(choice), false, FAILING)
          .assertEveryFailedWith("ml-kem-768 shared secrets differ");
      measure(
              "kem",
              Map.of("alg", "ml-kem-768", "input", "truncated"),
              keys(choice),
              false,
              FAILING)
          .assertEveryFailedWith("ml-kem-768 ciphertext of 1087 bytes refused; it is 1088");
      measure(
              "kem",
              Map.of("alg", "ml-kem-768", "input", "other-set", "side", "decaps"),
              keys(choice),
              false,
              FAILING)
          .assertEveryFailedWith("ml-kem-512 ciphertext of 1088 bytes refused; it is 768");
      measure("kem", Map.of("alg", "x25519", "input", "truncated"), keys(choice), false, FAILING)
          .assertEveryFailedWith("an X25519 share is 32 bytes, not 31");
    }
  }

  @Test
  void cms_mlDsaSignedData_rfc9882EncodingVerifiesAndATamperedOneIsRefused() throws Exception {
    for (ProviderChoice choice : ProviderChoice.values()) {
      measure("cms-sign", Map.of("alg", "ml-dsa-65"), keys(choice), true).assertEverySucceeded();
    }
    measure("cms-verify", Map.of("alg", "ml-dsa-44"), keys(ProviderChoice.JDK), true)
        .assertEverySucceeded();
    measure("cms-sign", Map.of("alg", "rsa2048"), keys(ProviderChoice.JDK), true)
        .assertEverySucceeded();
    var factory = new CmsWorkload.Factory(true);
    var workload =
        (CmsWorkload)
            factory.create(
                new WorkloadContext(keys(ProviderChoice.JDK), false),
                Params.resolve("cms-sign", factory.params(), Map.of("alg", "ml-dsa-65")));
    byte[] payload = "a CAdES payload".getBytes();
    byte[] signed = workload.signedData(payload);
    SigningKey mlDsa65 =
        keys(ProviderChoice.JDK).key(Entity.signerAlias(KeyAlgorithm.parse("ml-dsa-65"), 1));
    var signer =
        new org.bouncycastle.cms.CMSSignedData(signed)
            .getSignerInfos()
            .getSigners()
            .iterator()
            .next();
    // RFC 9882: the parameter set's OID with no parameters; SHA-512 as the digest for ML-DSA-65
    assertEquals("2.16.840.1.101.3.4.3.18", signer.getEncryptionAlgOID());
    assertEquals(null, signer.toASN1Structure().getDigestEncryptionAlgorithm().getParameters());
    assertEquals("2.16.840.1.101.3.4.2.3", signer.getDigestAlgOID());
    CmsWorkload.check(signed, payload, mlDsa65);
    byte[] tampered = signed.clone();
    tampered[tampered.length - 40] ^= 0x01; // inside the signature value, the last field
    assertThrows(Exception.class, () -> CmsWorkload.check(tampered, payload, mlDsa65));
  }

  @Test
  void params_unknownAlgorithm_namesTheSupportedList() {
    WorkloadFactory sign = WorkloadCatalog.builtIn().find("sign").orElseThrow();
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Params.resolve("sign", sign.params(), Map.of("alg", "ml-dsa-66")));
    assertTrue(
        e.getMessage().contains("-p alg=ml-dsa-66")
            && e.getMessage().contains("ml-dsa-65")
            && e.getMessage().contains("slh-dsa-sha2-128s"),
        e.getMessage());
    WorkloadFactory kem = WorkloadCatalog.builtIn().find("kem").orElseThrow();
    var k =
        assertThrows(
            IllegalArgumentException.class,
            () -> Params.resolve("kem", kem.params(), Map.of("alg", "kyber768")));
    assertTrue(
        k.getMessage().contains("ml-kem-512, ml-kem-768, ml-kem-1024, x25519"), k.getMessage());
    assertEquals(
        List.of(
            "-p input=tampered: a bad ciphertext is fed to decapsulation; use -p side=decaps or both"),
        kem.problems(
            Params.resolve("kem", kem.params(), Map.of("side", "encaps", "input", "tampered")),
            "software"));
  }
}
