package io.pkibench.workload.primitive;

import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import io.pkibench.testing.Openssl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every primitive workload with every provider, checking itself; and our signatures checked by openssl. */
class PrimitiveWorkloadsTest {
  @TempDir static Path tmp;
  static TestPki pki;

  @BeforeAll
  static void createPki() {
    pki = TestPki.init(tmp.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
  }

  static void runOperations(String workload, Map<String, String> params, KeySource keys, int times) throws Exception {
    WorkloadFactory factory = WorkloadCatalog.builtIn().find(workload).orElseThrow();
    try (Workload w = factory.create(new WorkloadContext(keys, true), Params.resolve(workload, factory.params(), params))) {
      Operation op = w.newOperation(0);
      for (int i = 0; i < times; i++) op.execute();
    }
  }

  @Test
  void everyWorkload_everyProvider_verifiesItsOwnOutput() throws Exception {
    for (ProviderChoice provider : ProviderChoice.values()) {
      KeySource keys = new SoftwareKeySource(() -> pki, provider);
      for (String alg : KeyAlgorithm.flags()) {
        runOperations("sign", Map.of("alg", alg, "size", "100"), keys, 3);
        runOperations("verify", Map.of("alg", alg), keys, 3);
      }
      runOperations("digest", Map.of("alg", "sha256", "size", "4k"), keys, 3);
      runOperations("aes-gcm", Map.of("size", "1k"), keys, 3);
      for (String alg : List.of("ecdsa-p256", "ed25519", "aes256")) {
        runOperations("keygen", Map.of("alg", alg), keys, 2);
      }
    }
    runOperations("noop", Map.of(), null, 3);
  }

  @Test
  void signature_byDefaultProvider_verifiesWithOpensslAndTamperFails() throws Exception {
    KeySource keys = new SoftwareKeySource(() -> pki, ProviderChoice.best());
    for (KeyAlgorithm alg : List.of(KeyAlgorithm.RSA2048, KeyAlgorithm.ECDSA_P256)) {
      SigningKey key = keys.key("signer-" + alg.flag + "-1");
      byte[] data = "ISO 20022 pacs.008 payload".getBytes();
      Signature s = Signature.getInstance(alg.signatureAlgorithm, key.provider());
      s.initSign(key.privateKey());
      s.update(data);
      Path sig = Files.write(tmp.resolve(alg.flag + ".sig"), s.sign());
      Path dataFile = Files.write(tmp.resolve(alg.flag + ".dat"), data);
      Path pub = tmp.resolve(alg.flag + ".pub.pem");
      assertTrue(Openssl.succeeded(Openssl.run("x509", "-in", pki.certificatePem(key.alias()).toString(), "-pubkey", "-noout", "-out", pub.toString())));
      String verified = Openssl.run("dgst", "-sha256", "-verify", pub.toString(), "-signature", sig.toString(), dataFile.toString());
      assertTrue(Openssl.succeeded(verified), alg + " signature by " + key.provider().getName() + " rejected by openssl: " + verified);
      data[3] ^= 0x01;
      Files.write(dataFile, data);
      String tampered = Openssl.run("dgst", "-sha256", "-verify", pub.toString(), "-signature", sig.toString(), dataFile.toString());
      assertTrue(!Openssl.succeeded(tampered), "a flipped byte must fail: " + tampered);
    }
  }

  @Test
  void params_unknownOrBadValue_reportsAll() {
    WorkloadFactory sign = WorkloadCatalog.builtIn().find("sign").orElseThrow();
    var e = assertThrows(IllegalArgumentException.class,
        () -> Params.resolve("sign", sign.params(), Map.of("alg", "dsa", "colour", "red")));
    assertTrue(e.getMessage().contains("-p alg=dsa") && e.getMessage().contains("-p colour"), e.getMessage());
  }

  @Test
  void params_sizeSuffixes_areBinary() {
    WorkloadFactory sign = WorkloadCatalog.builtIn().find("sign").orElseThrow();
    assertEquals(137 * 1024, Params.resolve("sign", sign.params(), Map.of("size", "137k")).bytes("size"));
    assertEquals(1 << 20, Params.resolve("sign", sign.params(), Map.of("size", "1m")).bytes("size"));
    assertThrows(IllegalArgumentException.class, () -> Params.resolve("sign", sign.params(), Map.of("size", "big")).bytes("size"));
  }

}
