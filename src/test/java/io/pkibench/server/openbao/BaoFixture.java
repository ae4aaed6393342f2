package io.pkibench.server.openbao;

import io.pkibench.pki.TestPki;
import io.pkibench.testing.ReservedPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A real OpenBao for tests: the bao {@link BaoBinary} finds (failing, naming how ./test installs
 * it, when there is none), on loopback ports free when asked.
 */
public final class BaoFixture {
  private BaoFixture() {}

  public static Path bao() {
    return BaoBinary.require(System.getenv());
  }

  /** Starts {@code nodes} nodes in {@code dir} with {@code pki}; the caller closes it. */
  public static OpenBaoServer start(Path dir, int nodes, TestPki pki) throws Exception {
    return start(dir, nodes, pki, null);
  }

  /**
   * As {@link #start(Path, int, TestPki)}, a node that dies started again {@code restartAfter}
   * later (serve openbao's --restart-after; null leaves it down).
   */
  public static OpenBaoServer start(Path dir, int nodes, TestPki pki, Duration restartAfter)
      throws Exception {
    OpenBaoServer server =
        new OpenBaoServer(
            new OpenBaoServer.Config(dir, nodes, freePorts(2 * nodes), pki, bao(), restartAfter));
    try {
      server.start();
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** The first of {@code count} consecutive loopback ports reserved for this test JVM. */
  static int freePorts(int count) throws IOException {
    return ReservedPorts.consecutive(count);
  }

  /** The environment a client of {@code server} is given: its token in BAO_TOKEN. */
  public static Map<String, String> tokenEnv(OpenBaoServer server) throws IOException {
    return Map.of("BAO_TOKEN", Files.readString(server.tokenFile()).strip());
  }
}
