package io.pkibench.testing;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TCP ports a process listens on, as the kernel says (its sockets in {@code /proc/PID/fd},
 * found LISTEN in {@code /proc/net/tcp} and {@code tcp6}): for a peer we did not write (stunnel)
 * that binds port 0 when told to but does not say which port it got. A port probed free by the test
 * and then handed over can be taken in between by any of the machine's other processes; one the
 * peer bound itself cannot.
 */
public final class ListeningPorts {
  private ListeningPorts() {}

  private static final Pattern SOCKET = Pattern.compile("socket:\\[(\\d+)]");

  /** LISTEN is state 0A in /proc/net/tcp. */
  private static final String LISTEN = "0A";

  /** The ports {@code process} listens on now, lowest first; empty before it binds. */
  public static Set<Integer> of(Process process) throws IOException {
    Set<String> inodes = new HashSet<>();
    try (DirectoryStream<Path> fds =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
      for (Path fd : fds) {
        try {
          Matcher m = SOCKET.matcher(Files.readSymbolicLink(fd).toString());
          if (m.matches()) inodes.add(m.group(1));
        } catch (IOException closed) {
          // the descriptor closed between the listing and the read
        }
      }
    }
    Set<Integer> ports = new TreeSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table))) {
        String[] f = line.strip().split("\\s+");
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        if (f.length > 9 && f[3].equals(LISTEN) && inodes.contains(f[9])) {
          String local = f[1];
          ports.add(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16));
        }
      }
    }
    return ports;
  }

  /**
   * The one port {@code process} listens on, once it does (within {@code limit}); fails saying what
   * {@code log} holds if it exits first or listens on none or several.
   */
  public static int await(Process process, Duration limit, Path log) throws Exception {
    Set<Integer> ports = Set.of();
    long end = System.nanoTime() + limit.toNanos();
    while (ports.isEmpty() && process.isAlive() && System.nanoTime() - end < 0) {
      ports = of(process);
      if (ports.isEmpty()) Thread.sleep(50);
    }
    if (ports.size() != 1)
      throw new AssertionError(
          process.info().command().orElse("the process")
              + (process.isAlive() ? " listens on " + ports : " exited")
              + " after up to "
              + limit.toSeconds()
              + " s, not on one port: "
              + (log != null && Files.exists(log) ? Files.readString(log) : ""));
    return ports.iterator().next();
  }
}
