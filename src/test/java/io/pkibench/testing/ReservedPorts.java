package io.pkibench.testing;

import io.pkibench.server.LoopbackPort;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for a server that must be told its port before it starts (a PEC provider names its
 * peer's, OpenBao's, Pebble's and nginx's configurations), and for a port that must stay closed (a
 * test of "connection refused").
 *
 * <p>A port probed free with {@code new ServerSocket(0)} comes from the kernel's ephemeral range,
 * the same range every outgoing connection on the machine takes its local port from and every other
 * test's server binding port 0 gets: under two test forks and a loaded machine it can be taken
 * between the probe and the server's bind, or a "closed" one start answering. These ports are drawn
 * below that range, where neither can land, and each is held for this JVM's life by a lock file
 * that every other test JVM on the machine respects; so two forks never hand out the same one. Only
 * a process that binds that fixed port by name could still take it.
 */
public final class ReservedPorts {
  private ReservedPorts() {}

  /** The lowest port drawn: well above the well-known and registered services people run. */
  static final int LOWEST = 12_000;

  private static final int ATTEMPTS = 500;

  /** The lock files this JVM holds; closing one would release its port to other test JVMs. */
  private static final List<FileChannel> HELD = new ArrayList<>();

  /** One reserved port, free on 127.0.0.1 when it was drawn. */
  public static int one() throws IOException {
    return consecutive(1);
  }

  /** The first of {@code count} consecutive reserved ports, all free on 127.0.0.1 when drawn. */
  public static int consecutive(int count) throws IOException {
    int high = Math.min(LoopbackPort.ephemeralLow(), LoopbackPort.LOWEST_DRAWN);
    if (high - count <= LOWEST)
      throw new IOException(
          "the kernel's ephemeral ports start at "
              + LoopbackPort.ephemeralLow()
              + " (net.ipv4.ip_local_port_range): no room below them for test ports");
    return consecutive(count, LOWEST, high);
  }

  /** As {@link #consecutive(int)}, drawn from {@code [low, high)}. */
  static synchronized int consecutive(int count, int low, int high) throws IOException {
    int highest = high - count + 1;
    Path locks = Path.of(System.getProperty("java.io.tmpdir"), "pkibench-test-ports");
    Files.createDirectories(locks);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(low, highest);
      List<FileChannel> taken = new ArrayList<>();
      boolean reserved = true;
      for (int port = base; port < base + count && reserved; port++) {
        FileChannel lock = lock(locks.resolve(port + ".lock"));
        if (lock == null) reserved = false;
        else taken.add(lock);
      }
      if (reserved && LoopbackPort.bindable(base, count)) {
        HELD.addAll(taken);
        return base;
      }
      for (FileChannel lock : taken) lock.close();
    }
    throw new IOException(
        "no "
            + count
            + " consecutive free loopback ports below the ephemeral range in "
            + ATTEMPTS);
  }

  /** The file's lock, or null when another JVM (or this one) holds it. */
  private static FileChannel lock(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      FileLock lock = channel.tryLock();
      if (lock != null) return channel;
    } catch (OverlappingFileLockException heldHere) {
      // this JVM drew the port before
    }
    channel.close();
    return null;
  }
}
