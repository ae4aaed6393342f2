package io.pkibench.workload.primitive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestProvider;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every primitive workload with every provider, checking itself; and our signatures checked by
 * openssl.
 */
class PrimitiveWorkloadsTest {
  @TempDir static Path tmp;
  static TestPki pki;

  @BeforeAll
  static void createPki() {
    pki =
        TestPki.init(
            tmp.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
  }

  /** A short run of {@code workload} through the engine, with the per-operation check on. */
  static MeasuredRun measure(String workload, Map<String, String> params, KeySource keys)
      throws Exception {
    WorkloadFactory factory = WorkloadCatalog.builtIn().find(workload).orElseThrow();
    try (Workload w =
        factory.create(
            new WorkloadContext(keys, true), Params.resolve(workload, factory.params(), params))) {
      return MeasuredRun.of(
          workload + " " + params + " on " + (keys == null ? "no keys" : keys.describe()),
          w,
          Duration.ofMillis(100));
    }
  }

  @Test
  void run_everyWorkloadEveryProvider_everyOperationSucceeds() throws Exception {
    for (ProviderChoice provider : ProviderChoice.values()) {
      KeySource keys = new SoftwareKeySource(() -> pki, provider);
      // the classical ones; the post-quantum ones, which not every provider has, in
      // PostQuantumWorkloadsTest
      for (String alg :
          KeyAlgorithm.signerAlgorithms().stream()
              .filter(a -> !a.isPostQuantum())
              .map(a -> a.flag)
              .toList()) {
        measure("sign", Map.of("alg", alg, "size", "100"), keys).assertEverySucceeded();
        measure("verify", Map.of("alg", alg), keys).assertEverySucceeded();
      }
      measure("digest", Map.of("alg", "sha256", "size", "4k"), keys).assertEverySucceeded();
      measure("aes-gcm", Map.of("size", "1k"), keys).assertEverySucceeded();
      for (String alg : List.of("ecdsa-p256", "ed25519", "aes256")) {
        measure("keygen", Map.of("alg", alg), keys).assertEverySucceeded();
      }
    }
    measure("noop", Map.of(), null).assertEverySucceeded();
  }

  @Test
  void run_outputsFlippedByTheProvider_everyOperationCountedFailedWithItsCheck() throws Exception {
    KeySource flipping =
        FaultyKeys.flippingEveryOutput(new SoftwareKeySource(() -> pki, ProviderChoice.JDK));
    measure("sign", Map.of("alg", "rsa2048", "size", "100"), flipping)
        .assertEveryFailedWith("does not verify with");
    measure("sign", Map.of("alg", "ecdsa-p256", "size", "100"), flipping)
        .assertEveryFailedWith("does not verify with");
    measure("verify", Map.of("alg", "rsa2048"), flipping)
        .assertEveryFailedWith("a valid signature did not verify");
    measure("digest", Map.of("alg", "sha256", "size", "4k"), flipping)
        .assertEveryFailedWith("differs from the independent digest");
    // the independent decryption refuses a flipped ciphertext on its tag, before the plaintexts are
    // compared
    measure("aes-gcm", Map.of("size", "1k"), flipping)
        .assertEveryFailedWith("mac check in GCM failed (AEADBadTagException)");
  }

  @Test
  void signature_byTheTestsProvider_verifiesWithOpensslAndTamperFails() throws Exception {
    KeySource keys = new SoftwareKeySource(() -> pki, TestProvider.chosen());
    for (KeyAlgorithm alg : List.of(KeyAlgorithm.RSA2048, KeyAlgorithm.ECDSA_P256)) {
      SigningKey key = keys.key("signer-" + alg.flag + "-1");
      byte[] data = "ISO 20022 pacs.008 payload".getBytes();
      Signature s = Signature.getInstance(alg.signatureAlgorithm, key.provider());
      s.initSign(key.privateKey());
      s.update(data);
      Path sig = Files.write(tmp.resolve(alg.flag + ".sig"), s.sign());
      Path dataFile = Files.write(tmp.resolve(alg.flag + ".dat"), data);
      Path pub = tmp.resolve(alg.flag + ".pub.pem");
      assertTrue(
          Openssl.succeeded(
              Openssl.run(
                  "x509",
                  "-in",
                  pki.certificatePem(key.alias()).toString(),
                  "-pubkey",
                  "-noout",
                  "-out",
                  pub.toString())));
      String verified =
          Openssl.run(
              "dgst",
              "-sha256",
              "-verify",
              pub.toString(),
              "-signature",
              sig.toString(),
              dataFile.toString());
      assertTrue(
          Openssl.succeeded(verified),
          alg + " signature by " + key.provider().getName() + " rejected by openssl: " + verified);
      data[3] ^= 0x01;
      Files.write(dataFile, data);
      String tampered =
          Openssl.run(
              "dgst",
              "-sha256",
              "-verify",
              pub.toString(),
              "-signature",
              sig.toString(),
              dataFile.toString());
      assertTrue(!Openssl.succeeded(tampered), "a flipped byte must fail: " + tampered);
    }
  }

  @Test
  void params_unknownOrBadValue_reportsAll() {
    WorkloadFactory sign = WorkloadCatalog.builtIn().find("sign").orElseThrow();
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Params.resolve("sign", sign.params(), Map.of("alg", "dsa", "colour", "red")));
    assertTrue(
        e.getMessage().contains("-p alg=dsa") && e.getMessage().contains("-p colour"),
        e.getMessage());
  }

  @Test
  void params_sizeSuffixes_areBinary() {
    WorkloadFactory sign = WorkloadCatalog.builtIn().find("sign").orElseThrow();
    assertEquals(
        137 * 1024, Params.resolve("sign", sign.params(), Map.of("size", "137k")).bytes("size"));
    assertEquals(
        1 << 20, Params.resolve("sign", sign.params(), Map.of("size", "1m")).bytes("size"));
    assertThrows(
        IllegalArgumentException.class,
        () -> Params.resolve("sign", sign.params(), Map.of("size", "big")).bytes("size"));
  }
}
