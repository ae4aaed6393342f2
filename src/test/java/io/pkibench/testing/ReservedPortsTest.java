package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.server.LoopbackPort;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class ReservedPortsTest {
  @Test
  void consecutive_belowTheEphemeralRange_neverTwiceInOneJvm_andBindable() throws Exception {
    Set<Integer> drawn = new HashSet<>();
    for (int i = 0; i < 40; i++) {
      int base = ReservedPorts.consecutive(2);
      assertTrue(base >= ReservedPorts.LOWEST, "at or above " + ReservedPorts.LOWEST + ": " + base);
      assertTrue(
          base + 1 < LoopbackPort.LOWEST_DRAWN && base + 1 < LoopbackPort.ephemeralLow(),
          base + " and the next are below the studies' ports and the kernel's ephemeral range");
      assertTrue(drawn.add(base) && drawn.add(base + 1), "handed out twice: " + base);
      try (ServerSocket a = new ServerSocket(base, 1, InetAddress.getLoopbackAddress());
          ServerSocket b = new ServerSocket(base + 1, 1, InetAddress.getLoopbackAddress())) {
        assertEquals(base + 1, b.getLocalPort());
      }
    }
  }

  @Test
  void portsLockedByAnotherProcess_orListenedOn_areNotHandedOut() throws Exception {
    // a window of ten ports: another process (as another test JVM would) holds the locks of eight,
    // a server listens on one more; the one left is the only answer, and with it drawn none is left
    int low = ThreadLocalRandom.current().nextInt(ReservedPorts.LOWEST, 20_000);
    int listened = low + 3, left = low + 7;
    Path locks = Path.of(System.getProperty("java.io.tmpdir"), "pkibench-test-ports");
    Files.createDirectories(locks);
    List<String> command =
        new ArrayList<>(
            List.of(
                "python3",
                "-c",
                "import fcntl, sys, time\n"
                    + "held = [open(p, 'w') for p in sys.argv[1:]]\n"
                    + "for f in held: fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                    + "print('held', flush=True)\n"
                    + "sys.stdin.read()\n"));
    for (int port = low; port < low + 10; port++)
      if (port != listened && port != left) command.add(locks.resolve(port + ".lock").toString());
    Process holder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try (ServerSocket server = new ServerSocket(listened, 1, InetAddress.getLoopbackAddress())) {
      String line = new BufferedReader(new InputStreamReader(holder.getInputStream())).readLine();
      assertEquals("held", line, "the other process took its locks");
      assertEquals(left, ReservedPorts.consecutive(1, low, low + 10));
      assertThrows(IOException.class, () -> ReservedPorts.consecutive(1, low, low + 10));
    } finally {
      holder.getOutputStream().close();
      holder.waitFor();
    }
  }
}
