package io.pkibench.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports: whether a server a reference server started (nginx, Pebble's DNS) listens yet,
 * and free ports for a server that must be told its port before it starts.
 */
public final class LoopbackPort {
  private LoopbackPort() {}

  /**
   * Where {@link #freeSpan} draws from: below it live the well-known and registered services people
   * run, and the test suite's own reserved ports.
   */
  public static final int LOWEST_DRAWN = 20_000;

  /** Linux's first ephemeral port by default, and below IANA's dynamic range (49152) too. */
  static final int EPHEMERAL_LOW_DEFAULT = 32_768;

  private static final int ATTEMPTS = 500;

  /** A connection to 127.0.0.1:{@code port} was taken within half a second. */
  public static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException notYet) {
      return false;
    }
  }

  /**
   * The first of {@code count} consecutive ports free on 127.0.0.1 now, drawn below the kernel's
   * ephemeral range. A port from {@code new ServerSocket(0)} is an ephemeral one: the range every
   * outgoing connection takes its local port from. A server killed and started again on it (a fault
   * step) can then find it taken by a client's connection, or by a client's connection to that very
   * port, which Linux completes with itself (a TCP self-connect) when nothing listens: seen when
   * 1,000 orders a second were refused by a killed Pebble, which could not start again. Below the
   * range neither can happen. When the range leaves no room below it, the kernel's choice it is.
   */
  public static int freeSpan(int count) throws IOException {
    int high = Math.min(ephemeralLow(), EPHEMERAL_LOW_DEFAULT);
    if (high - count <= LOWEST_DRAWN) return kernelsChoice(count);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(LOWEST_DRAWN, high - count + 1);
      if (bindable(base, count)) return base;
    }
    throw new IOException(
        "no "
            + count
            + " consecutive free loopback ports between "
            + LOWEST_DRAWN
            + " and "
            + high
            + " in "
            + ATTEMPTS
            + " draws");
  }

  /** A port the kernel chose whose {@code count - 1} next ones are free too. */
  private static int kernelsChoice(int count) throws IOException {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = socket.getLocalPort();
      }
      if (port + count <= 65_536 && bindable(port, count)) return port;
    }
    throw new IOException("no " + count + " consecutive free loopback ports in " + ATTEMPTS);
  }

  /** Whether nothing listens on any of the {@code count} ports from {@code base} now. */
  public static boolean bindable(int base, int count) {
    List<ServerSocket> probes = new ArrayList<>();
    try {
      for (int port = base; port < base + count; port++)
        probes.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
      return true;
    } catch (IOException busy) {
      return false;
    } finally {
      for (ServerSocket probe : probes) {
        try {
          probe.close();
        } catch (IOException ignored) {
          // a probe that will not close released nothing anyone relies on
        }
      }
    }
  }

  /** The first port of the kernel's ephemeral range; Linux's default when it cannot be read. */
  public static int ephemeralLow() {
    try {
      // in one read: the kernel answers a read past offset 0 with end of file, and readString
      // takes one byte first
      String range;
      try (var in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
        range = new String(in.readNBytes(4096), StandardCharsets.US_ASCII).strip();
      }
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException unreadable) {
      return EPHEMERAL_LOW_DEFAULT;
    }
  }
}
