package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Await;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A power cut under the provider: its spool and mailboxes on {@link PowerCutFileSystem}, which
 * keeps what was not fsynced in memory and drops it at the cut. Every message answered 250 is whole
 * in its mailbox once the provider is started again, including those a checkpoint flushed before
 * the cut: on FUSE, which syncfs(2) does not reach, that flush fsyncs each delivery.
 */
class PowerCutTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  /** Sends {@code count} messages tagged {@code tag} from 4 senders; the ones answered 250. */
  private static List<String> sendAll(PecServer server, String tag, int count) throws Exception {
    int port = InProcessProvider.port(server);
    List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
    List<Thread> senders = new ArrayList<>();
    for (int s = 0; s < 4; s++) {
      int sender = s;
      senders.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int n = sender; n < count; n += 4) {
                      String id = InProcessProvider.messageId(tag, n);
                      try {
                        if (InProcessProvider.send(port, id).startsWith("250"))
                          acknowledged.add(id);
                      } catch (Exception e) {
                        // not acknowledged: nothing is owed for it
                      }
                    }
                  }));
    }
    for (Thread t : senders) t.join(TimeUnit.SECONDS.toMillis(60));
    return acknowledged;
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void powerCut_afterACheckpointAndMoreMail_everyAcknowledgedMessageWholeAfterRestart()
      throws Exception {
    Path disk = dir.resolve("disk");
    Path spool = disk.resolve("spool");
    Path mail = disk.resolve("mail");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    try (PowerCutFileSystem fs = PowerCutFileSystem.mount(disk, dir.resolve("fs"))) {
      List<String> acknowledged = new ArrayList<>();
      PecServer before = InProcessProvider.start(keys, spool, mail, new Durable(), log::add);
      String cut;
      try {
        acknowledged.addAll(sendAll(before, "flushed", 20));
        assertEquals(20, acknowledged.size(), "the first 20 answered 250; log: " + log);
        Await.until(
            Duration.ofSeconds(60),
            "the first 20 delivered",
            () -> before.stats().processed() == 20 && before.stats().waitingJobs() == 0);
        assertTrue(before.checkpoint(), "a checkpoint flushed the 20 deliveries");
        // their job records force the checkpoint's record to the disk: from now on, only the
        // mailboxes' files vouch for the first 20
        acknowledged.addAll(sendAll(before, "recorded", 10));
        assertEquals(30, acknowledged.size(), "the next 10 answered 250; log: " + log);
        Await.until(Duration.ofSeconds(60), "30 jobs done", () -> before.stats().processed() == 30);
        cut = fs.cut();
      } finally {
        before.close(); // after the cut: its writes fail, as a dead machine's would
      }
      Matcher dropped = Pattern.compile("cut (\\d+) files").matcher(cut);
      assertTrue(
          dropped.find() && Integer.parseInt(dropped.group(1)) > 0,
          "the cut dropped unsynced bytes: " + cut);
      fs.up();
      String fsyncs = fs.fsyncs();
      List<String> logBefore = List.copyOf(log);
      log.clear();
      PecServer after = InProcessProvider.start(keys, spool, mail, new Durable(), log::add);
      try {
        try {
          Await.until(
              Duration.ofSeconds(30),
              "every acknowledged message whole in user1's mailbox",
              () -> InProcessProvider.wholeIn(mail, acknowledged).size() == acknowledged.size());
        } catch (AssertionError e) {
          List<String> missing = new ArrayList<>(acknowledged);
          missing.removeAll(InProcessProvider.wholeIn(mail, acknowledged));
          throw new AssertionError(
              missing.size()
                  + " of "
                  + acknowledged.size()
                  + " acknowledged messages lost by the power cut ("
                  + cut
                  + "), e.g. "
                  + missing.subList(0, Math.min(3, missing.size()))
                  + "; log after: "
                  + log,
              e);
        }
        assertEquals(
            acknowledged.size(),
            InProcessProvider.delivered(mail).size(),
            "one copy of each, nothing else");
      } finally {
        after.close();
      }
      // how the first 20 came through: each fsynced by the checkpoint, syncfs not reaching FUSE
      Matcher mailFsyncs = Pattern.compile("mail=(\\d+)").matcher(fsyncs);
      assertTrue(
          mailFsyncs.find() && Integer.parseInt(mailFsyncs.group(1)) >= 20,
          "the checkpoint fsynced each of the 20 deliveries (syncfs does not reach FUSE): "
              + fsyncs);
      assertTrue(
          logBefore.stream().anyMatch(l -> l.contains("is on a FUSE file system")),
          "the provider said how it flushes there: " + logBefore);
    }
  }
}
