package io.pkibench.cli;

import io.pkibench.server.HttpEndpoints;
import io.pkibench.server.ReadyLine;
import io.pkibench.server.ReferenceServer;
import java.net.BindException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;

/** Options every service takes. */
abstract class ServedService implements Callable<Integer> {
  @ParentCommand ServeCommand serve;

  @Option(
      names = "--bind",
      defaultValue = "127.0.0.1",
      paramLabel = "ADDRESS",
      description =
          "address to listen on (default: ${DEFAULT-VALUE}; anything else exposes the service beyond this machine)")
  String bind;

  @Option(
      names = "--pki",
      paramLabel = "DIR",
      description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
  Path pki;

  abstract ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception;

  abstract String what(ReferenceServer server);

  @Override
  public Integer call() throws Exception {
    CliContext ctx = serve.parent.context;
    Path pkiDir = ctx.pkiDir(pki);
    ReferenceServer server = null;
    try {
      server = open(ctx, pkiDir);
      if (server instanceof HttpEndpoints http)
        http.logTo(line -> ctx.err().println(line)); // internal errors, by incident id
      server.start();
    } catch (Exception thrown) {
      if (server != null) server.close(); // whatever it started before failing to listen
      // the libraries wrap it (SubEthaSMTP in a RuntimeException, gRPC in an IOException): look
      // down the causes
      // (netty's native transport says it in an IOException of its own)
      Throwable e = null;
      for (Throwable t = thrown; t != null && e == null; t = t.getCause()) {
        if (t instanceof BindException
            || String.valueOf(t.getMessage())
                .toLowerCase(Locale.ROOT)
                .contains("address already in use")) e = t;
      }
      if (e == null) throw thrown;
      var parsed = serve.spec.commandLine().getParseResult().subcommand();
      Object port =
          parsed.matchedOptionValue("--port", parsed.commandSpec().findOption("--port").getValue());
      throw new ParameterException(
          serve.spec.commandLine(),
          "--port "
              + port
              + ": cannot listen on "
              + bind
              + ":"
              + port
              + " (address already in use); give another port, or --port 0 for any free one");
    }
    ReferenceServer running = server;
    String details = running.details().isEmpty() ? "" : "; " + running.details();
    ctx.out().println(what(running) + details + " (pid " + running.pid() + "); Ctrl-C stops it");
    // For programs that start services (a study, a script): one line, fixed prefix, JSON.
    ctx.out()
        .println(
            new ReadyLine(
                    serve.spec.commandLine().getParseResult().subcommand().commandSpec().name(),
                    running.baseUrl(),
                    running.pid())
                .format());
    ctx.out().flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  stopped.countDown();
                },
                "pkibench-serve-stop"));
    stopped.await();
    return ExitCodes.OK;
  }
}
