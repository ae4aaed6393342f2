package io.pkibench.cli;

import io.pkibench.keys.P11KitAddress;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.session.ForkedSeries;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Starts the command's JVM again when {@code --keys pkcs11:CONFIG,remote=unix:path=SOCKET} names a
 * p11-kit server its environment does not: p11-kit-client.so reads {@code P11_KIT_SERVER_ADDRESS}
 * from the process's environment when it loads, and a JVM cannot set its own. The child inherits
 * the terminal; its exit code is the command's.
 */
final class P11KitLaunch {
  private P11KitLaunch() {}

  /** The p11-kit servers the {@code --keys} values among {@code args} name. */
  static List<P11KitAddress> servers(String[] args) {
    List<P11KitAddress> servers = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String keys =
          args[i].startsWith("--keys=")
              ? args[i].substring("--keys=".length())
              : args[i].equals("--keys") && i + 1 < args.length ? args[i + 1] : null;
      if (keys == null) continue;
      for (P11KitAddress a : KeySources.p11KitServers(keys))
        if (!servers.contains(a)) servers.add(a);
    }
    return servers;
  }

  /**
   * The exit code of the command run in a JVM started with the address, or empty when this JVM
   * already has it (or no p11-kit server is named) and runs the command itself.
   */
  static OptionalInt runWithServerAddress(String[] args, Map<String, String> env, PrintStream err)
      throws IOException, InterruptedException {
    List<P11KitAddress> servers = servers(args);
    if (servers.isEmpty()) return OptionalInt.empty();
    if (servers.size() > 1) {
      err.println(
          "--keys names the p11-kit servers "
              + servers
              + "; one process reaches one ("
              + P11KitAddress.ENV
              + " is read once): run them in separate commands");
      return OptionalInt.of(ExitCodes.USAGE);
    }
    String address = servers.get(0).toString();
    if (address.equals(env.get(P11KitAddress.ENV))) return OptionalInt.empty();
    err.println(
        "pkibench: starting its JVM again with "
            + P11KitAddress.ENV
            + "="
            + address
            + " (p11-kit-client.so reads it when it loads)");
    List<String> command = new ArrayList<>(ForkedSeries.thisJvm());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().put(P11KitAddress.ENV, address);
    Process child = builder.start();
    // A parent stopped by a signal stops the child with it, as the terminal's Ctrl-C already does.
    Thread stop = new Thread(child::destroy, "stop-p11kit-child");
    Runtime.getRuntime().addShutdownHook(stop);
    int code = child.waitFor();
    Runtime.getRuntime().removeShutdownHook(stop);
    return OptionalInt.of(code);
  }
}
