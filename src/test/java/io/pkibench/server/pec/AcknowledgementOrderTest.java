package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.TestKeys;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of writes and replies, watched through {@link Durable.Watch}: no SMTP 250 reaches a
 * sender before the fdatasync covering its message's journal record has ended. Forces are slowed a
 * little, so that a reply sent before its force (or without one) is seen before the force ends.
 */
class AcknowledgementOrderTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  /** A force or a 250 as it happened, in one order for all threads. */
  record Event(String what, Durable.Force force, String messageId) {}

  /** Every force's start and end, every 250 the senders read; journal forces slowed by 40 ms. */
  static final class WriteOrder implements Durable.Watch {
    final List<Event> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void beginning(Durable.Force force) {
      events.add(new Event("beginning", force, null));
      if (force.kind() == Durable.Kind.FILE_DATA) {
        try {
          Thread.sleep(40);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void ended(Durable.Force force) {
      events.add(new Event("ended", force, null));
    }

    void acknowledged(String messageId) {
      events.add(new Event("250", null, messageId));
    }
  }

  /** Each job record's end in the journal (its offset past the last byte), by Message-ID. */
  private static Map<String, Long> jobRecordEnds(Path journal) throws Exception {
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(journal));
    Map<String, Long> ends = new HashMap<>();
    while (all.remaining() >= 8) {
      int length = all.getInt();
      all.getInt(); // its checksum: the spool checked it when it read the journal back
      ByteBuffer body = all.slice(all.position(), length);
      all.position(all.position() + length);
      if (body.get() == SpoolRecords.JOB) {
        PecSpool.Job job = SpoolRecords.readJob(body);
        ends.put(SmtpIntake.messageId(job.bytes()), (long) all.position());
      }
    }
    return ends;
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void data_concurrentSenders_no250BeforeTheForceCoveringItsJournalRecordEnded() throws Exception {
    Path root = dir.resolve("order");
    WriteOrder order = new WriteOrder();
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    PecServer server =
        InProcessProvider.start(
            keys, root.resolve("spool"), root.resolve("mail"), new Durable(order), log::add);
    List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    try {
      int port = InProcessProvider.port(server);
      List<Thread> senders = new ArrayList<>();
      for (int s = 0; s < 4; s++) {
        int sender = s;
        senders.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      for (int n = 0; n < 6; n++) {
                        String id = InProcessProvider.messageId("order" + sender, n);
                        try {
                          String reply = InProcessProvider.send(port, id);
                          if (reply.startsWith("250")) {
                            order.acknowledged(id);
                            acknowledged.add(id);
                          } else problems.add(id + ": " + reply);
                        } catch (Exception e) {
                          problems.add(id + ": " + e);
                        }
                      }
                    }));
      }
      for (Thread t : senders) t.join(TimeUnit.SECONDS.toMillis(60));
    } finally {
      server.close();
    }
    assertEquals(List.of(), problems, "every message answered 250; log: " + log);
    assertEquals(24, acknowledged.size());

    Path journal = root.resolve("spool/journal").toAbsolutePath().normalize();
    Map<String, Long> ends = jobRecordEnds(journal);
    List<Event> events = List.copyOf(order.events);
    List<String> early = new ArrayList<>();
    for (String id : acknowledged) {
      Long end = ends.get(id);
      assertTrue(end != null, id + " was acknowledged and has no job record in the journal");
      int ack = events.indexOf(new Event("250", null, id));
      boolean covered = false;
      for (Event e : events.subList(0, ack)) {
        if (e.what().equals("ended")
            && e.force().kind() == Durable.Kind.FILE_DATA
            && e.force().path().equals(journal)
            && e.force().coveredBytes() >= end) {
          covered = true;
          break;
        }
      }
      if (!covered) early.add(id + " (its record ends at byte " + end + ")");
    }
    assertTrue(
        early.isEmpty(),
        early.size()
            + " of "
            + acknowledged.size()
            + " acknowledged before a force of the journal covering its record had ended, e.g. "
            + early.subList(0, Math.min(3, early.size())));
  }
}
