package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.workload.api.SocketBudget;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits a run meets before it starts: open files and ports for workloads that hold
 * connections.
 */
class RunLimitsTest {
  @TempDir Path dir;

  static Plan plan(String workload, Map<String, String> params, int workers) {
    Iterations one = Iterations.parse("1x1s");
    return new Plan(
        List.of(new WorkloadSpec(workload, params, "software")),
        new LoadModel.Closed(List.of(2, workers)),
        one,
        one,
        1,
        ThreadKind.VIRTUAL,
        false,
        "jvm");
  }

  @Test
  void socketProblems_connectionsPastTheFileLimitOrThePorts_namedWithTheNumberAndTheWayOut() {
    var catalog = WorkloadCatalog.builtIn();
    var budget = new SocketBudget(1_000, 500);
    List<String> tls =
        catalog.socketProblems(
            plan(
                "tls-rr",
                Map.of("target", "tls://127.0.0.1:8444", "source-addresses", "127.0.0.1"),
                900),
            budget);
    assertEquals(2, tls.size(), tls.toString());
    assertTrue(
        tls.get(0)
                .startsWith(
                    "--concurrency 900 of tls-rr holds 900 connections at once, so this run needs about 1156 open files")
            && tls.get(0).contains("'ulimit -n 1156'")
            && tls.get(0).contains("at most 744"),
        tls.get(0));
    assertTrue(
        tls.get(1).contains("500 ephemeral ports")
            && tls.get(1).contains("ip_local_port_range")
            && tls.get(1)
                .contains(
                    "give at least 2 source addresses (--source-addresses 127.0.0.1-127.0.0.2"),
        tls.get(1));
    assertEquals(
        List.of(),
        catalog.socketProblems(
            plan("tls-rr", Map.of("target", "tls://127.0.0.1:8444"), 400), budget),
        "400 fit both");
    assertEquals(
        List.of(),
        catalog.socketProblems(plan("noop", Map.of(), 900_000), budget),
        "in-process workers hold no socket");
    assertEquals(
        1,
        catalog
            .socketProblems(plan("tls-rr", Map.of("target", "tls://127.0.0.1:8444"), 900), budget)
            .size(),
        "auto on loopback spreads over 127.0.0.0/8: the open files alone stop it");
    assertEquals(
        1,
        catalog
            .socketProblems(
                plan(
                    "tls-hold",
                    Map.of(
                        "target",
                        "tls://127.0.0.1:8444",
                        "source-addresses",
                        "127.0.0.1,127.0.0.2"),
                    900),
                budget)
            .size(),
        "two addresses, 1,000 ports: the open files alone stop it");
    assertEquals(
        List.of(),
        catalog.socketProblems(plan("tls-handshake", Map.of(), 900_000), budget),
        "in-memory handshakes hold none");
    assertFalse(
        catalog
            .socketProblems(
                plan("tls-handshake", Map.of("target", "tls://127.0.0.1:8444"), 900), budget)
            .isEmpty(),
        "over sockets they do");
    assertFalse(
        catalog
            .socketProblems(
                plan("https-rr", Map.of("target", "https://127.0.0.1:8443/bytes/128"), 900), budget)
            .isEmpty());
  }

  @Test
  void ephemeralPorts_readFromTheKernelsRange_unreadableIsUnlimited() throws Exception {
    Path range = Files.writeString(dir.resolve("range"), "32768\t60999\n");
    assertEquals(28_232, SocketBudget.portsIn(range));
    assertEquals(Integer.MAX_VALUE, SocketBudget.portsIn(dir.resolve("absent")));
    assertEquals(
        Integer.MAX_VALUE, SocketBudget.portsIn(Files.writeString(dir.resolve("bad"), "lots")));
    // the kernel's own file, which answers only a read from its start (a reader that took one byte
    // first got "3" and fell to unlimited), against cat's reading of it
    Path kernels = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    Process cat = new ProcessBuilder("cat", kernels.toString()).start();
    String[] lowHigh =
        new String(cat.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII)
            .trim()
            .split("\\s+");
    assertEquals(0, cat.waitFor());
    assertEquals(
        Integer.parseInt(lowHigh[1]) - Integer.parseInt(lowHigh[0]) + 1,
        SocketBudget.portsIn(kernels),
        "the kernel's range, as cat reads it: " + String.join(" ", lowHigh));
  }

  @Test
  void run_sourceAddressesBadOrWhereNoConnectionIsMade_refusedNamingTheFlag() {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    int code =
        Main.execute(
            ctx,
            "run",
            "tls-hold",
            "--target",
            "tls://127.0.0.1:9",
            "--source-addresses",
            "127.0.0.9-127.0.0.2",
            "--out",
            "r.json");
    assertEquals(2, code, err.toString());
    assertTrue(
        err.toString()
            .contains(
                "--source-addresses 127.0.0.9-127.0.0.2: 127.0.0.9-127.0.0.2: the range ends before it starts"),
        err.toString());
    err.getBuffer().setLength(0);
    code =
        Main.execute(
            ctx,
            "run",
            "tls-rr",
            "--target",
            "tls://127.0.0.1:9",
            "--source-addresses",
            "192.168.1.5",
            "--out",
            "r.json");
    assertEquals(2, code, err.toString());
    assertTrue(
        err.toString()
            .contains(
                "--source-addresses 192.168.1.5: 192.168.1.5 is not on loopback and the target 127.0.0.1 is"),
        err.toString());
    err.getBuffer().setLength(0);
    code =
        Main.execute(
            ctx, "run", "noop", "--source-addresses", "127.0.0.1-127.0.0.4", "--out", "r.json");
    assertEquals(2, code, err.toString());
    assertTrue(
        err.toString()
            .contains("--source-addresses 127.0.0.1-127.0.0.4: none of noop opens connections"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("r.json")), "nothing written");
  }

  /**
   * This machine's hard limit (20,000 here): a run past it stops with exit 2 before any worker
   * starts, naming ulimit -n.
   */
  @Test
  void run_moreConnectionsThanThisProcessMayOpen_exit2BeforeAnythingStarts() {
    long limit = SocketBudget.ofThisProcess().openFiles();
    assertTrue(limit < 900_000, "this test needs an open-file limit under 900,000; it is " + limit);
    int workers = (int) limit;
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    int code =
        Main.execute(
            ctx,
            "run",
            "tls-rr",
            "-p",
            "target=tls://127.0.0.1:9",
            "--concurrency",
            Integer.toString(workers),
            "--virtual-threads",
            "--out",
            "r.json");
    assertEquals(2, code, err.toString());
    assertTrue(
        err.toString()
                .contains("needs about " + (workers + SocketBudget.RESERVED_FILES) + " open files")
            && err.toString().contains("ulimit -n"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("r.json")), "nothing written");
  }
}
