package io.pkibench.server.pebble;

import io.pkibench.pki.TestPki;
import io.pkibench.testing.ReservedPorts;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Debian's Pebble started on loopback for a test, on two free ports (ACME, management); the test
 * fails saying how to install Pebble when it is missing.
 */
public final class PebbleFixture {
  private PebbleFixture() {}

  public static PebbleServer start(Path dir, TestPki pki) throws Exception {
    return start(dir, pki, 0);
  }

  /**
   * Pebble validating http-01 for real on 127.0.0.1:{@code http01Port} (0: always valid), its DNS
   * (pebble-challtestsrv) on the two ports above its management port.
   */
  public static PebbleServer start(Path dir, TestPki pki, int http01Port) throws Exception {
    Path pebble = PebbleServer.require(System.getenv());
    for (int attempt = 0; ; attempt++) {
      int port = http01Port == 0 ? freePortPair() : ReservedPorts.consecutive(4);
      PebbleServer server =
          new PebbleServer(new PebbleServer.Config(dir, port, pki, pebble, http01Port));
      try {
        server.start();
        return server;
      } catch (IOException e) {
        server.close();
        if (attempt == 3) throw e; // the pair was taken between the check and Pebble's bind
      }
    }
  }

  /** A port whose next one is reserved too, for this test JVM. */
  static int freePortPair() throws IOException {
    return ReservedPorts.consecutive(2);
  }
}
