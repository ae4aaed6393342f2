package io.pkibench.workload.api;

import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The connections one process can hold: its open-file limit (the JVM raises the soft limit to the
 * hard one at start on Linux, {@code -XX:+MaxFDLimit}, so what it reports is all there is) and,
 * towards one server address, the ephemeral ports of one source address. A plan that needs more is
 * refused before anything starts, with the number it needs and the way out, instead of failing its
 * workers one by one with "Too many open files".
 */
public record SocketBudget(long openFiles, int ephemeralPorts) {
  /**
   * Files a run holds besides its workers' sockets: the JDK's jars, the result and interval log,
   * key stores, epoll.
   */
  public static final int RESERVED_FILES = 256;

  /**
   * This process's limits; a value it cannot read is taken as unlimited, so a run is never refused
   * on a guess.
   */
  public static SocketBudget ofThisProcess() {
    long files = Long.MAX_VALUE;
    if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
      files = unix.getMaxFileDescriptorCount();
    }
    return new SocketBudget(files, portsIn(Path.of("/proc/sys/net/ipv4/ip_local_port_range")));
  }

  /**
   * A sysctl file under {@code /proc/sys} in one read: the kernel answers a read at any offset but
   * 0 with end of file, and {@code Files.readString} on a file whose size reads 0 takes one byte
   * first, then reads on from offset 1 (it read {@code "3"} of {@code "32768\t60999"}, and the
   * budget fell silently to unlimited).
   */
  static String readSysctl(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readNBytes(4096), StandardCharsets.US_ASCII);
    }
  }

  /**
   * The ports a {@code ip_local_port_range} file gives one source address; unreadable: unlimited.
   */
  public static int portsIn(Path range) {
    try {
      String[] lowHigh = readSysctl(range).trim().split("\\s+");
      return Integer.parseInt(lowHigh[1]) - Integer.parseInt(lowHigh[0]) + 1;
    } catch (IOException | RuntimeException unreadable) {
      return Integer.MAX_VALUE;
    }
  }

  /**
   * Problems of holding {@code sockets} connections at once for {@code what} (e.g. "--concurrency
   * 30000: tls-rr"); empty when they fit.
   */
  public List<String> problems(String what, long sockets) {
    return problems(what, sockets, 1);
  }

  /**
   * Problems of holding {@code sockets} connections at once for {@code what}, leaving from {@code
   * sourceAddresses} local addresses (each has its own ephemeral ports towards one server address);
   * empty when they fit.
   */
  public List<String> problems(String what, long sockets, long sourceAddresses) {
    List<String> problems = new ArrayList<>();
    long files = sockets + RESERVED_FILES;
    if (files > openFiles) {
      problems.add(
          what
              + " holds "
              + sockets
              + " connections at once, so this run needs about "
              + files
              + " open files and this process may"
              + " open "
              + openFiles
              + " (its hard limit): raise it (as root: 'ulimit -n "
              + files
              + "' in the shell that starts pkibench, or"
              + " nofile in /etc/security/limits.conf), or lower --concurrency to at most "
              + Math.max(1, openFiles - RESERVED_FILES));
    }
    long addresses = Math.max(1, sourceAddresses);
    if (sockets > (long) ephemeralPorts * addresses) {
      long needed = (sockets + ephemeralPorts - 1) / ephemeralPorts;
      problems.add(
          what
              + " holds "
              + sockets
              + " connections at once to one server address, and one source address has "
              + ephemeralPorts
              + " ephemeral ports (/proc/sys/net/ipv4/ip_local_port_range)"
              + (addresses == 1
                  ? ""
                  : ", " + addresses + " addresses " + ephemeralPorts * addresses)
              + ": give at least "
              + needed
              + " source addresses (--source-addresses 127.0.0.1-127.0.0."
              + Math.min(254, needed)
              + " on loopback), lower --concurrency, or widen the range");
    }
    return problems;
  }
}
