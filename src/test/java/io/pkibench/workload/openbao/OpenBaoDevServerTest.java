package io.pkibench.workload.openbao;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.openbao.OpenBaoException;
import io.pkibench.pki.Secret;
import io.pkibench.server.openbao.BaoFixture;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.openbao.OpenBaoWorkloads.Kind;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * openbao:transit-sign --verify against the real {@code bao server -dev} as its manual starts it
 * (in-memory storage, unsealed, plain HTTP on loopback), not serve openbao's setup: transit mounted
 * and an ECDSA key made through the API, then every signature verifies with the key's public key.
 * The root token reaches bao through its environment (BAO_DEV_ROOT_TOKEN_ID), never its command
 * line, and is never written to the test's HOME (-dev-no-store-token).
 */
class OpenBaoDevServerTest {
  @TempDir Path dir;

  @Test
  void devServer_transitSignVerified_everyOperationSucceeds() throws Exception {
    String token = UUID.randomUUID().toString();
    int port = io.pkibench.testing.ReservedPorts.one();
    ProcessBuilder pb =
        new ProcessBuilder(
                BaoFixture.bao().toString(),
                "server",
                "-dev",
                "-dev-no-store-token",
                "-dev-listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("bao.log").toFile());
    for (String v : List.of("BAO_TOKEN", "VAULT_TOKEN", "BAO_ADDR", "VAULT_ADDR"))
      pb.environment().remove(v);
    pb.environment().put("BAO_DEV_ROOT_TOKEN_ID", token);
    pb.environment().put("HOME", dir.toString());
    Process bao = pb.start();
    try {
      assertFalse(
          String.join(" ", bao.info().arguments().orElse(new String[0])).contains(token),
          "the token is not on bao's command line");
      URI url = URI.create("http://127.0.0.1:" + port);
      try (OpenBaoClient root =
          new OpenBaoClient(
              List.of(url), Secret.of(token.toCharArray()), null, Duration.ofSeconds(10))) {
        awaitUnsealed(root, bao);
        root.post("sys/mounts/transit", Map.of("type", "transit"));
        root.post("transit/keys/dev-ec", Map.of("type", "ecdsa-p256"));
      }
      OpenBaoWorkloads.Factory factory = new OpenBaoWorkloads.Factory(Kind.TRANSIT_SIGN);
      Map<String, String> given = new HashMap<>(Map.of("key", "dev-ec"));
      given.put(ParamSpec.TARGET, url.toString());
      Params params = Params.resolve(factory.name(), factory.params(), given);
      assertEquals(List.of(), factory.problems(params, null));
      TestKeys keys = TestKeys.in(dir);
      try (Workload w =
          factory.create(
              new WorkloadContext(
                  null, true, () -> keys.pki, InstantSource.system(), Map.of("BAO_TOKEN", token)),
              params)) {
        MeasuredRun run = MeasuredRun.of("transit-sign on bao -dev", w).assertEverySucceeded();
        assertTrue(run.succeeded() > 0, run.toString());
      }
      assertFalse(
          Files.exists(dir.resolve(".vault-token")) || Files.exists(dir.resolve(".bao-token")),
          "the dev server stored no token in HOME");
    } finally {
      bao.destroy();
      if (!bao.waitFor(10, TimeUnit.SECONDS)) bao.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    assertFalse(bao.isAlive(), "bao -dev stopped");
  }

  /** The dev server answers sys/health 200 (initialised, unsealed, active) within 60 s. */
  private void awaitUnsealed(OpenBaoClient root, Process bao) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    OpenBaoException last = null;
    while (System.nanoTime() < deadline) {
      assertTrue(bao.isAlive(), "bao -dev exited: " + Files.readString(dir.resolve("bao.log")));
      try {
        root.get("sys/health");
        return;
      } catch (OpenBaoException e) {
        last = e;
        Thread.sleep(200);
      }
    }
    throw new AssertionError(
        "bao -dev not ready within 60 s: "
            + last
            + "; its log: "
            + Files.readString(dir.resolve("bao.log")));
  }
}
