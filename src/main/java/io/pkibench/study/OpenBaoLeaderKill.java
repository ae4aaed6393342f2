package io.pkibench.study;

import io.pkibench.keys.PemKeys;
import io.pkibench.keys.TlsContexts;
import io.pkibench.keys.remote.openbao.OpenBaoKeySpec;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.openbao.OpenBaoException;
import io.pkibench.pki.TestPki;
import io.pkibench.results.StudyRecord;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * {@code --fault kill-leader@T}: T into the fault step's measured seconds, SIGKILLs the node of the
 * OpenBao cluster holding the keys that leads it now (the one whose {@code sys/leader} says {@code
 * is_self}), found among the processes of this machine by its listening port; then watches, until
 * the step ends, which node leads after and when the killed one answers again ({@code serve
 * openbao} starts it again after its {@code --restart-after}). What it saw is {@link #outcome()},
 * the study's finding.
 */
final class OpenBaoLeaderKill implements StepHook {
  /** Standbys and the leader: a node that answers sys/health with one of these is back. */
  private static final Set<Integer> ANSWERING = Set.of(200, 429, 472, 473);

  private static final Duration POLL = Duration.ofMillis(250);

  private final OpenBaoKeySpec spec;
  private final Path pkiDir;
  private final Duration warmup;
  private final Duration at;
  private final Duration watchFor;
  private volatile Outcome outcome;

  /**
   * What was seen: the node killed (its index in the spec's list, -1 when none led), its pid, then
   * how long after the kill another node led (null: none within the step) and which, and how long
   * after the kill the killed node answered again (null: not within the step). {@code trouble} says
   * why nothing was killed, null when it was.
   */
  record Outcome(
      int killed,
      long pid,
      Double newLeaderAfterSeconds,
      int newLeader,
      Double backAfterSeconds,
      String trouble) {}

  OpenBaoLeaderKill(
      OpenBaoKeySpec spec, Path pkiDir, Duration warmup, Duration at, Duration watchFor) {
    this.spec = spec;
    this.pkiDir = pkiDir;
    this.warmup = warmup;
    this.at = at;
    this.watchFor = watchFor;
  }

  @Override
  public String describe() {
    return StudyRecord.StepRecord.FAULT
        + "SIGKILL the OpenBao Raft leader (of "
        + spec.nodes().size()
        + " nodes, the one whose sys/leader says is_self) about "
        + at.toSeconds()
        + " s into the measured seconds; serve openbao starts it again after its --restart-after";
  }

  /** Null until the kill was tried. */
  Outcome outcome() {
    return outcome;
  }

  @Override
  public void run(RunningServices services) throws Exception {
    SSLContext tls = TlsContexts.trusting(root());
    Thread t =
        new Thread(
            () -> {
              try {
                Thread.sleep(warmup.plus(at).toMillis());
                killAndWatch(services, tls);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception e) {
                outcome = new Outcome(-1, -1, null, -1, null, e.getMessage());
                services.say("fault: the OpenBao leader was not killed: " + e.getMessage());
              }
            },
            "pix-fault-openbao");
    t.setDaemon(true);
    t.start();
  }

  private X509Certificate root() throws Exception {
    if (spec.trust() != null) return PemKeys.certificate(Files.readAllBytes(spec.trust()));
    return TestPki.open(pkiDir).certificate("root-ca");
  }

  private void killAndWatch(RunningServices services, SSLContext tls) throws Exception {
    try (OpenBaoClient open = new OpenBaoClient(spec.nodes(), null, tls, Duration.ofSeconds(3))) {
      int leader = leader(open, -1);
      if (leader < 0) {
        outcome = new Outcome(-1, -1, null, -1, null, "no node said it leads (sys/leader is_self)");
        services.say("fault: no OpenBao node said it leads; nothing was killed");
        return;
      }
      URI url = spec.nodes().get(leader);
      OptionalLong pid = ListeningProcess.on(url.getPort());
      if (pid.isEmpty()) {
        outcome =
            new Outcome(
                leader,
                -1,
                null,
                -1,
                null,
                "no process of this user listens on port " + url.getPort() + " (" + url + ")");
        services.say("fault: " + outcome.trouble() + "; nothing was killed");
        return;
      }
      ProcessHandle victim =
          ProcessHandle.of(pid.getAsLong())
              .orElseThrow(() -> new IllegalStateException("pid " + pid + " is gone"));
      String name = ListeningProcess.name(pid.getAsLong());
      victim.destroyForcibly();
      long killedNanos = System.nanoTime();
      services.say(
          "fault: SIGKILLed the OpenBao leader, node "
              + (leader + 1)
              + " "
              + url
              + " ("
              + name
              + ", pid "
              + pid.getAsLong()
              + ")");
      outcome = new Outcome(leader, pid.getAsLong(), null, -1, null, null);
      long deadline = killedNanos + watchFor.toNanos();
      Double ledAfter = null, backAfter = null;
      int newLeader = -1;
      while (System.nanoTime() < deadline && (ledAfter == null || backAfter == null)) {
        double seconds = (System.nanoTime() - killedNanos) / 1e9;
        if (ledAfter == null) {
          newLeader = leader(open, leader);
          if (newLeader >= 0) {
            ledAfter = seconds;
            services.say(
                String.format(
                    Locale.ROOT,
                    "fault: node %d %s leads, %.1f s after the kill",
                    newLeader + 1,
                    spec.nodes().get(newLeader),
                    seconds));
          }
        }
        if (backAfter == null && answers(open, leader)) {
          backAfter = seconds;
          services.say(
              String.format(
                  Locale.ROOT,
                  "fault: node %d %s answers again, %.1f s after the kill",
                  leader + 1,
                  url,
                  seconds));
        }
        outcome = new Outcome(leader, pid.getAsLong(), ledAfter, newLeader, backAfter, null);
        Thread.sleep(POLL.toMillis());
      }
    }
  }

  /** The index of the node that says it leads, other than {@code not}; -1 when none does. */
  private static int leader(OpenBaoClient open, int not) {
    for (int i = 0; i < open.nodes().size(); i++) {
      if (i == not) continue;
      try {
        // a standby may still name a leader that is gone: only the active node says is_self
        if (open.getFrom(i, "sys/leader").path("is_self").asBoolean()) return i;
      } catch (OpenBaoException e) {
        // down, sealed or electing: ask the next
      }
    }
    return -1;
  }

  /** Whether node {@code i} answers as an unsealed member of the cluster (leader or standby). */
  private static boolean answers(OpenBaoClient open, int i) {
    try {
      open.getFrom(i, "sys/health");
      return true;
    } catch (OpenBaoException e) {
      return ANSWERING.contains(e.status());
    }
  }

  /** The study's finding: what the kill did, in sentences, from what was seen. */
  List<String> lines() {
    List<URI> nodes = spec.nodes();
    List<String> lines = new ArrayList<>();
    Outcome o = outcome;
    if (o == null) {
      lines.add("fault: the OpenBao leader was not killed (the step did not reach the kill)");
      return lines;
    }
    if (o.trouble() != null) {
      lines.add("fault: the OpenBao leader was not killed: " + o.trouble());
      return lines;
    }
    StringBuilder b =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "fault: OpenBao node %d of %d (%s, pid %d) led and was SIGKILLed about %d s into the measured seconds; ",
                o.killed() + 1,
                nodes.size(),
                nodes.get(o.killed()),
                o.pid(),
                at.toSeconds()));
    b.append(
        o.newLeaderAfterSeconds() == null
            ? "no other node led within " + watchFor.toSeconds() + " s"
            : String.format(
                Locale.ROOT,
                "node %d (%s) led after, %.1f s after the kill",
                o.newLeader() + 1,
                nodes.get(o.newLeader()),
                o.newLeaderAfterSeconds()));
    b.append(
        o.backAfterSeconds() == null
            ? "; the killed node did not answer again within the step"
            : String.format(
                Locale.ROOT,
                "; the killed node answered again (started by serve openbao) %.1f s after the kill",
                o.backAfterSeconds()));
    lines.add(b.toString());
    return lines;
  }
}
