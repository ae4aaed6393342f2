package io.pkibench.server.pebble;

import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

/**
 * Debian's Pebble started on loopback for a test, on two free ports (ACME, management); the test
 * fails saying how to install Pebble when it is missing.
 */
public final class PebbleFixture {
  private PebbleFixture() {}

  public static PebbleServer start(Path dir, TestPki pki) throws Exception {
    Path pebble = PebbleServer.require(System.getenv());
    for (int attempt = 0; ; attempt++) {
      int port = freePortPair();
      PebbleServer server = new PebbleServer(new PebbleServer.Config(dir, port, pki, pebble));
      try {
        server.start();
        return server;
      } catch (IOException e) {
        server.close();
        if (attempt == 3) throw e; // the pair was taken between the check and Pebble's bind
      }
    }
  }

  /** A port whose next one is free too, both on 127.0.0.1 now. */
  static int freePortPair() throws IOException {
    for (int i = 0; i < 50; i++) {
      try (ServerSocket a = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        int port = a.getLocalPort();
        if (port >= 65535) continue;
        try (ServerSocket b = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
          return port;
        } catch (IOException taken) {
          // try another
        }
      }
    }
    throw new IOException("no two adjacent free ports on 127.0.0.1 in 50 tries");
  }
}
