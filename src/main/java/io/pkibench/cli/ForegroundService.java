package io.pkibench.cli;

import io.pkibench.server.ReadyLine;
import io.pkibench.server.ReferenceServer;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * Runs a program we did not write (OpenBao, Pebble) as a {@code serve} command: a shutdown hook
 * stops it on SIGTERM or Ctrl-C even while it is being set up, a failure to start stops what it had
 * started, then one human line and the ready line, and the command waits until it is stopped.
 */
final class ForegroundService {
  private ForegroundService() {}

  /**
   * {@code title} opens the human line ("OpenBao (v2.7.2)"); {@code ready} is asked after the
   * start, when the server knows its pid.
   */
  static int serveUntilStopped(
      CliContext ctx, ReferenceServer server, String title, Supplier<ReadyLine> ready)
      throws Exception {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                },
                "pkibench-serve-stop"));
    try {
      server.start();
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
    ctx.out()
        .println(
            title
                + " at "
                + server.baseUrl()
                + "; "
                + server.details()
                + " (pid "
                + server.pid()
                + "); Ctrl-C stops it");
    ctx.out().println(ready.get().format());
    ctx.out().flush();
    stopped.await();
    return ExitCodes.OK;
  }
}
