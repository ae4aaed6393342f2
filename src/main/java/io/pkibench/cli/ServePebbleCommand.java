package io.pkibench.cli;

import io.pkibench.pki.TestPki;
import io.pkibench.server.ReadyLine;
import io.pkibench.server.pebble.PebbleServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;

@Command(
    name = "pebble",
    mixinStandardHelpOptions = true,
    header = "Let's Encrypt's Pebble ACME CA on loopback, with the test PKI's TLS identity.",
    description = {
      "Let's Encrypt's Pebble ACME CA (Debian's pebble, or $PKIBENCH_PEBBLE) on loopback, from a configuration written here: ACME on",
      "--port, its management interface (the current root at /roots/0) on --port + 1, TLS with the test PKI's tls-server identity,",
      "validation always passing and never sleeping, no nonce refused at random (PEBBLE_VA_ALWAYS_VALID=1, PEBBLE_VA_NOSLEEP=1,",
      "PEBBLE_WFE_NONCEREJECT=0). Pebble keeps everything in memory and makes a new root each start.",
      "--challenge http-01: Pebble validates for real instead (no PEBBLE_VA_ALWAYS_VALID), fetching each key authorization from",
      "127.0.0.1:--http-port, where acme:order -p challenge=http-01 listens; every name resolves to 127.0.0.1 through Debian's",
      "pebble-challtestsrv, run as Pebble's DNS only on 127.0.0.1:--port + 2 (its management on --port + 3, its own listeners off)."
    },
    footer = {
      "",
      "Example:",
      "  pkibench serve pebble --port 14000",
      "  pkibench run acme:order --target https://127.0.0.1:14000/dir -p issuer-trust=https://127.0.0.1:14001/roots/0 --verify",
      "  pkibench serve pebble --port 14000 --challenge http-01 --http-port 5002",
      "  pkibench run acme:order --target https://127.0.0.1:14000/dir -p issuer-trust=https://127.0.0.1:14001/roots/0 --verify \\",
      "      -p challenge=http-01 -p http-port=5002"
    })
final class ServePebbleCommand implements Callable<Integer> {
  @ParentCommand ServeCommand serve;

  @Option(
      names = "--port",
      defaultValue = "14000",
      description =
          "the ACME port (default: ${DEFAULT-VALUE}); the management interface listens one above")
  int port;

  @Option(
      names = "--challenge",
      defaultValue = "always-valid",
      paramLabel = "always-valid|http-01",
      description =
          "always-valid: every challenge passes (for load); http-01: Pebble fetches each key authorization from the client's"
              + " listener on --http-port (default: ${DEFAULT-VALUE})")
  String challenge;

  @Option(
      names = "--http-port",
      defaultValue = "5002",
      description =
          "--challenge http-01: the loopback port Pebble's validation connects to, where acme:order -p http-port listens"
              + " (default: ${DEFAULT-VALUE})")
  int httpPort;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "a directory for the configuration, the TLS identity and Pebble's log (default: a new temporary one)")
  Path dir;

  @Option(
      names = "--pki",
      paramLabel = "DIR",
      description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
  Path pki;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = serve.parent.context;
    Path pebble = PebbleServer.find(ctx.env()).orElse(null);
    boolean http01 = challenge.equals("http-01");
    List<String> problems =
        new ArrayList<>(PebbleServer.problems(port, http01 ? httpPort : 0, pebble));
    if (!http01 && !challenge.equals("always-valid"))
      problems.add(
          "--challenge "
              + challenge
              + ": give always-valid (for load) or http-01 (validated for real)");
    if (pebble == null) {
      try {
        PebbleServer.require(ctx.env());
      } catch (IllegalStateException e) {
        problems.add(e.getMessage());
      }
    }
    if (!problems.isEmpty())
      throw new ParameterException(serve.spec.commandLine(), String.join("\n", problems));
    Path run = dir == null ? Files.createTempDirectory("pkibench-pebble-") : ctx.resolve(dir);
    TestPki testPki = TestPki.openOrInit(ctx.pkiDir(pki), ctx.clock(), ctx.err()::println);
    PebbleServer server =
        new PebbleServer(
            new PebbleServer.Config(run, port, testPki, pebble, http01 ? httpPort : 0));
    return ForegroundService.serveUntilStopped(
        ctx,
        server,
        "Pebble (" + PebbleServer.version() + ")",
        () -> new ReadyLine("pebble", server.baseUrl(), server.pid()));
  }
}
