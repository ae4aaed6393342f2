package io.pkibench.server.pebble;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.ReservedPorts;
import io.pkibench.testing.TestKeys;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PebbleStartTest {
  @TempDir Path dir;

  @Test
  void aTakenManagementPort_failsTheStart_sayingWhyFromPebblesLog() throws Exception {
    TestKeys keys = TestKeys.in(dir);
    int port = ReservedPorts.consecutive(2);
    PebbleServer pebble =
        new PebbleServer(
            new PebbleServer.Config(
                dir.resolve("pebble"), port, keys.pki, PebbleServer.require(System.getenv())));
    try (ServerSocket taken = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
      IOException e = assertThrows(IOException.class, pebble::start);
      assertTrue(
          e.getMessage().contains("pebble exited with")
              && e.getMessage().contains("address already in use"),
          "the reason, not only where the log is: " + e.getMessage());
    } finally {
      pebble.close();
    }
  }
}
