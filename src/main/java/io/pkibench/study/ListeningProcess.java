package io.pkibench.study;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The process of this machine listening on a TCP port, read from {@code /proc} as {@code ss -lp}
 * does: the listening sockets' inodes from {@code /proc/net/tcp} and {@code tcp6}, then the process
 * holding one of them open. A fault run kills a server it did not start this way (OpenBao's
 * leader); only the user's own processes can be seen, which are the only ones it may kill.
 */
final class ListeningProcess {
  private static final String LISTEN = "0A";

  private ListeningProcess() {}

  /** The pid listening on {@code port}, empty when none of the user's processes does. */
  static OptionalLong on(int port) throws IOException {
    Set<String> sockets = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      Path file = Path.of(table);
      if (!Files.isReadable(file)) continue;
      List<String> lines = Files.readAllLines(file);
      for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        String[] f = line.trim().split("\\s+");
        if (f.length < 10 || !LISTEN.equals(f[3])) continue;
        String local = f[1];
        int colon = local.lastIndexOf(':');
        if (Integer.parseInt(local.substring(colon + 1), 16) == port)
          sockets.add("socket:[" + f[9] + "]");
      }
    }
    if (sockets.isEmpty()) return OptionalLong.empty();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        Path fds = proc.resolve("fd");
        if (!Files.isReadable(fds)) continue;
        try (DirectoryStream<Path> links = Files.newDirectoryStream(fds)) {
          for (Path link : links) {
            String target;
            try {
              target = Files.readSymbolicLink(link).toString();
            } catch (IOException gone) {
              continue; // closed while we looked
            }
            if (sockets.contains(target))
              return OptionalLong.of(Long.parseLong(proc.getFileName().toString()));
          }
        } catch (IOException notOurs) {
          // another user's process, or gone: not one we could kill anyway
        }
      }
    }
    return OptionalLong.empty();
  }

  /** What {@code /proc/PID/comm} names, for the log; "?" when gone. */
  static String name(long pid) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
    } catch (IOException e) {
      return "?";
    }
  }
}
