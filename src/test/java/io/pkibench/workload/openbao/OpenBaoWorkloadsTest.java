package io.pkibench.workload.openbao;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.TlsContexts;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.pki.Secret;
import io.pkibench.server.openbao.BaoFixture;
import io.pkibench.server.openbao.OpenBaoServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.catalog.WorkloadCatalog;
import io.pkibench.workload.openbao.OpenBaoWorkloads.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The openbao:* workloads against a real bao (serve openbao's setup, one node): each runs through
 * the engine with --verify and every operation passes its independent check; a key rotated under a
 * running workload (its answers no longer the key fetched at the start) is counted failed.
 */
class OpenBaoWorkloadsTest {
  @TempDir static Path dir;
  static TestKeys keys;
  static OpenBaoServer server;
  static Map<String, String> env;

  @BeforeAll
  static void startOpenBao() throws Exception {
    keys = TestKeys.in(dir);
    server = BaoFixture.start(dir.resolve("bao"), 1, keys.pki);
    env = BaoFixture.tokenEnv(server);
  }

  @AfterAll
  static void stopOpenBao() {
    if (server != null) server.close();
  }

  static Workload workload(Kind kind, Map<String, String> params) throws Exception {
    OpenBaoWorkloads.Factory factory = new OpenBaoWorkloads.Factory(kind);
    Map<String, String> given = new HashMap<>(params);
    given.put(ParamSpec.TARGET, server.baseUrl());
    Params resolved = Params.resolve(factory.name(), factory.params(), given);
    assertEquals(List.of(), factory.problems(resolved, null));
    return factory.create(
        new WorkloadContext(null, true, () -> keys.pki, InstantSource.system(), env), resolved);
  }

  static OpenBaoClient root() throws Exception {
    Secret token = Secret.of(env.get("BAO_TOKEN").toCharArray());
    return new OpenBaoClient(
        server.urls(),
        token,
        TlsContexts.trusting(keys.pki.certificate("root-ca")),
        Duration.ofSeconds(10));
  }

  @Test
  void everyKind_verified_everyOperationSucceeds() throws Exception {
    for (Kind kind : Kind.values()) {
      try (Workload w = workload(kind, Map.of())) {
        MeasuredRun.of("openbao:" + kind.flag, w).assertEverySucceeded();
      }
    }
  }

  @Test
  void transitSign_ecdsaEd25519AndRsaSha384_verifiedWithTheCertificatesKey() throws Exception {
    for (Map<String, String> p :
        List.of(
            Map.of("key", "signer-ecdsa-p256-2"),
            Map.of("key", "signer-ed25519-1"),
            Map.of("key", "signer-rsa3072-1", "hash", "sha2-384"))) {
      try (Workload w = workload(Kind.TRANSIT_SIGN, p)) {
        MeasuredRun.of("transit-sign " + p, w).assertEverySucceeded();
      }
      try (Workload w = workload(Kind.TRANSIT_VERIFY, p)) {
        MeasuredRun.of("transit-verify " + p, w).assertEverySucceeded();
      }
    }
  }

  @Test
  void pki_everyRole_verified() throws Exception {
    for (String role : OpenBaoServer.ROLES.keySet()) {
      for (Kind kind : List.of(Kind.PKI_ISSUE, Kind.PKI_SIGN)) {
        try (Workload w = workload(kind, Map.of("role", role))) {
          MeasuredRun.of(kind.flag + " " + role, w).assertEveryVerified();
        }
      }
    }
  }

  @Test
  void transitSign_keyRotatedAfterItsPublicKeyWasFetched_everyOperationFails() throws Exception {
    try (OpenBaoClient root = root()) {
      root.post("transit/keys/rotated-ec", Map.of("type", "ecdsa-p256"));
      try (Workload w = workload(Kind.TRANSIT_SIGN, Map.of("key", "rotated-ec"))) {
        MeasuredRun.of("transit-sign before rotation", w).assertEverySucceeded();
        root.post("transit/keys/rotated-ec/rotate", Map.of());
        MeasuredRun.of("transit-sign after rotation", w)
            .assertEveryFailedWith("does not verify with its public key");
      }
    }
  }

  @Test
  void transitEncrypt_keyRotatedAfterItWasExported_everyOperationFails() throws Exception {
    try (OpenBaoClient root = root()) {
      root.post("transit/keys/rotated-aes", Map.of("type", "aes256-gcm96", "exportable", true));
      try (Workload w = workload(Kind.TRANSIT_ENCRYPT, Map.of("key", "rotated-aes"))) {
        MeasuredRun.of("transit-encrypt before rotation", w).assertEverySucceeded();
        root.post("transit/keys/rotated-aes/rotate", Map.of());
        MeasuredRun.of("transit-encrypt after rotation", w).assertEveryFailedWith("Tag mismatch");
      }
    }
  }

  @Test
  void create_withoutAToken_saysWhereToPutIt() {
    OpenBaoWorkloads.Factory factory = new OpenBaoWorkloads.Factory(Kind.TRANSIT_SIGN);
    Params params =
        Params.resolve(factory.name(), factory.params(), Map.of("target", server.baseUrl()));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                factory.create(
                    new WorkloadContext(
                        null, true, () -> keys.pki, InstantSource.system(), Map.of()),
                    params));
    assertTrue(
        e.getMessage().contains("BAO_TOKEN") && e.getMessage().contains("token-file"),
        e.getMessage());
  }

  @Test
  void catalog_namesEveryKind_andATargetIsRequired() {
    WorkloadCatalog catalog = WorkloadCatalog.builtIn();
    for (Kind kind : Kind.values())
      assertTrue(catalog.find("openbao:" + kind.flag).isPresent(), kind.flag);
    OpenBaoWorkloads.Factory factory = new OpenBaoWorkloads.Factory(Kind.PKI_ISSUE);
    assertTrue(
        factory
            .problems(Params.resolve(factory.name(), factory.params(), Map.of()), null)
            .get(0)
            .startsWith("--target: openbao:pki-issue needs OpenBao's URL"));
  }
}
