package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.session.ForkedSeries;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spool's journal: a torn last record cut on opening, a process SIGKILLed mid-batch losing
 * nothing it acknowledged, compaction.
 */
class PecSpoolTest {
  @TempDir Path dir;

  private static PecSpool.Job job(String id, int bytes) {
    byte[] body = new byte[bytes];
    for (int i = 0; i < bytes; i++) body[i] = (byte) ('a' + i % 26);
    return new PecSpool.Job(
        id,
        Origin.INCOMING,
        "someone@elsewhere.test",
        List.of("user1@pec1.test", "user2@pec1.test"),
        body);
  }

  private static PecSpool.Item item(String route, String messageId) {
    return new PecSpool.Item(
        Route.parse(route),
        "ricevuta",
        "posta-certificata@pec1.test",
        List.of("user1@pec2.test"),
        messageId,
        messageId.getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * j1 committed with two results (the first carried), j2 waiting; returns the journal's size
   * before j3, the last record.
   */
  private static long twoJobsThenALastOne(Path spoolDir) throws Exception {
    try (PecSpool spool = new PecSpool(spoolDir, new Durable())) {
      assertTrue(spool.store(job("j1", 3000)));
      assertTrue(spool.store(job("j2", 3000)));
      spool.commit(
          "j1",
          List.of(item("mailbox", "<a@pec1.test>"), item("relay:pec2.test", "<b@pec1.test>")));
      spool.carried("j1/0");
      long before = Files.size(spoolDir.resolve("journal"));
      assertTrue(spool.store(job("j3", 2000)));
      return before;
    }
  }

  private static void copy(Path from, Path to) throws Exception {
    Files.createDirectories(to);
    Files.copy(from.resolve("journal"), to.resolve("journal"));
  }

  @Test
  @Timeout(60)
  void open_lastRecordCutAtAnyPoint_keepsEveryWholeRecordCutsTheTornOneAndAppendsAfterIt()
      throws Exception {
    Path whole = dir.resolve("whole");
    long lastStart = twoJobsThenALastOne(whole);
    long end = Files.size(whole.resolve("journal"));
    List<Long> cuts = new ArrayList<>();
    for (long c = lastStart; c < lastStart + 12; c++)
      cuts.add(c); // inside the header and the first bytes of the body
    cuts.addAll(List.of(lastStart + (end - lastStart) / 2, end - 2, end - 1));
    for (long cut : cuts) {
      Path torn = dir.resolve("cut-" + cut);
      copy(whole, torn);
      try (RandomAccessFile f = new RandomAccessFile(torn.resolve("journal").toFile(), "rw")) {
        f.setLength(cut);
      }
      try (PecSpool spool = new PecSpool(torn, new Durable())) {
        assertEquals(cut - lastStart, spool.tornBytes(), "cut at " + cut);
        assertEquals(
            List.of("j2"),
            spool.pendingJobs(),
            "cut at " + cut + ": j2 waits, j1 is done, the torn j3 was never acknowledged");
        assertEquals(List.of("j1/1"), spool.pendingItems(), "cut at " + cut);
        assertFalse(spool.known("j3"), "cut at " + cut);
        assertTrue(spool.store(job("j3", 2000)), "cut at " + cut + ": the sender's retry is taken");
      }
      try (PecSpool spool = new PecSpool(torn, new Durable())) {
        assertEquals(
            0,
            spool.tornBytes(),
            "cut at " + cut + ": the retry was appended where the torn record was cut");
        assertEquals(List.of("j2", "j3"), spool.pendingJobs(), "cut at " + cut);
        assertEquals(2000, spool.read("j3").bytes().length);
      }
    }
  }

  @Test
  @Timeout(60)
  void open_lastRecordWithAFlippedByte_dropsItByItsChecksum() throws Exception {
    Path whole = dir.resolve("whole");
    long lastStart = twoJobsThenALastOne(whole);
    long end = Files.size(whole.resolve("journal"));
    Path flipped = dir.resolve("flipped");
    copy(whole, flipped);
    try (RandomAccessFile f = new RandomAccessFile(flipped.resolve("journal").toFile(), "rw")) {
      f.seek(end - 100);
      int b = f.read();
      f.seek(end - 100);
      f.write(b ^ 0x01);
    }
    try (PecSpool spool = new PecSpool(flipped, new Durable())) {
      assertEquals(end - lastStart, spool.tornBytes());
      assertEquals(List.of("j2"), spool.pendingJobs());
    }
    try (PecSpool spool = new PecSpool(whole, new Durable())) {
      assertEquals(0, spool.tornBytes());
      assertEquals(List.of("j2", "j3"), spool.pendingJobs(), "the same journal unflipped holds j3");
    }
  }

  /**
   * A process storing 4 MB jobs from 4 threads, SIGKILLed once it has acknowledged 8 of them, at
   * the moment the journal's size shows a record half written (every record has the same length):
   * every acknowledged job is in the spool reopened, once and whole, and the torn record is cut. A
   * kill that came after the write ended tears nothing: tried again in a fresh spool, up to 8
   * times.
   */
  @Test
  @Timeout(180)
  void store_processKilledMidBatch_everyAcknowledgedJobRecoveredAndTheTornRecordCut()
      throws Exception {
    long recordBytes;
    long versionBytes; // the record naming the journal's format, before any job
    try (PecSpool sample = new PecSpool(dir.resolve("sample"), new Durable())) {
      versionBytes = Files.size(dir.resolve("sample/journal"));
      sample.store(SpoolKillChild.job("r1", 0, 0, new byte[SpoolKillChild.BODY_BYTES]));
      recordBytes = Files.size(dir.resolve("sample/journal")) - versionBytes;
    }
    List<String> command = new ArrayList<>(ForkedSeries.thisJvm());
    command.set(command.size() - 1, SpoolKillChild.class.getName());
    boolean tornSeen = false;
    List<String> said = new ArrayList<>();
    for (int attempt = 1; attempt <= 8 && !tornSeen; attempt++) {
      Path spoolDir = dir.resolve("killed-" + attempt);
      Path journal = spoolDir.resolve("journal");
      List<String> cmd = new ArrayList<>(command);
      cmd.addAll(List.of(spoolDir.toString(), "r" + attempt));
      Process child =
          new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      List<String> acked = Collections.synchronizedList(new ArrayList<>());
      List<String> lines = Collections.synchronizedList(new ArrayList<>());
      Thread reader =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (BufferedReader out =
                        new BufferedReader(
                            new InputStreamReader(
                                child.getInputStream(), StandardCharsets.UTF_8))) {
                      for (String line; (line = out.readLine()) != null; ) {
                        lines.add(line);
                        if (line.startsWith("ack ")) acked.add(line.split(" ")[1]);
                      }
                    } catch (IOException e) {
                      // the child was killed
                    }
                  });
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (acked.size() < 8 && child.isAlive() && System.nanoTime() < end) Thread.onSpinWait();
      List<String> ackedBeforeKill;
      long sizeSeen;
      do {
        sizeSeen = Files.size(journal) - versionBytes;
      } while (sizeSeen % recordBytes == 0 && child.isAlive() && System.nanoTime() < end);
      child.destroyForcibly(); // SIGKILL
      ackedBeforeKill = List.copyOf(acked);
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child ended");
      reader.join(10_000);
      assertTrue(lines.stream().noneMatch(l -> l.startsWith("error")), lines.toString());
      assertTrue(ackedBeforeKill.size() >= 8, "acknowledged before the kill: " + lines);
      try (PecSpool spool = new PecSpool(spoolDir, new Durable())) {
        List<String> recovered = spool.pendingJobs();
        assertTrue(
            recovered.containsAll(ackedBeforeKill),
            "every acknowledged job recovered: acked "
                + ackedBeforeKill
                + ", recovered "
                + recovered);
        assertEquals(recovered.size(), recovered.stream().distinct().count(), "each once");
        for (String id : recovered)
          assertEquals(SpoolKillChild.BODY_BYTES, spool.read(id).bytes().length, id + " whole");
        assertEquals(
            versionBytes + recordBytes * recovered.size(),
            Files.size(journal),
            "the journal cut to its whole records");
        tornSeen = spool.tornBytes() > 0;
        said.add(
            "attempt "
                + attempt
                + ": killed at "
                + sizeSeen
                + " bytes ("
                + sizeSeen % recordBytes
                + " into a record), "
                + ackedBeforeKill.size()
                + " acknowledged, "
                + recovered.size()
                + " recovered, torn "
                + spool.tornBytes()
                + " bytes; "
                + lines.getLast());
      }
    }
    System.out.println(String.join("\n", said));
    assertTrue(tornSeen, "a kill landed mid-write within 8 attempts: " + said);
  }

  @Test
  @Timeout(60)
  void compactPast_finishedJobs_leaveOnlyTheirIdsAndTheStateReadsBackTheSame() throws Exception {
    Path spoolDir = dir.resolve("compact");
    long before;
    try (PecSpool spool = new PecSpool(spoolDir, new Durable())) {
      for (String id : List.of("j1", "j2", "j3", "j4")) assertTrue(spool.store(job(id, 50_000)));
      spool.commit(
          "j1",
          List.of(item("mailbox", "<a@pec1.test>"), item("relay:pec2.test", "<b@pec1.test>")));
      spool.carried("j1/0");
      spool.commit("j2", List.of());
      spool.fail("j3", "our code failed on it");
      before = Files.size(spoolDir.resolve("journal"));
      assertFalse(spool.compactPast(before + 1), "under the threshold nothing is rewritten");
      assertTrue(spool.compactPast(0));
      assertTrue(
          Files.size(spoolDir.resolve("journal")) < before - 100_000,
          "two finished jobs' bytes gone: "
              + before
              + " → "
              + Files.size(spoolDir.resolve("journal")));
      assertTrue(spool.store(job("j5", 100)), "appends go on after the rewrite");
    }
    try (PecSpool spool = new PecSpool(spoolDir, new Durable())) {
      assertEquals(0, spool.tornBytes());
      assertEquals(List.of("j4", "j5"), spool.pendingJobs());
      assertEquals(List.of("j1/1"), spool.pendingItems());
      assertEquals("<b@pec1.test>", spool.readItem("j1/1").messageId());
      for (String id : List.of("j1", "j2", "j3"))
        assertFalse(spool.store(job(id, 100)), id + " is known done: a retry is dropped");
      assertTrue(
          Files.isRegularFile(spoolDir.resolve("failed/j3.job")),
          "the failed job kept for a person");
    }
  }

  private static List<Path> mailFiles(Path root) throws Exception {
    if (!Files.isDirectory(root)) return List.of();
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }

  /**
   * Deliveries cost no fsync each; a checkpoint costs one for all of them and ends their records:
   * reopened after both files vanished, the spool rewrites only the delivery made after the
   * checkpoint (the one before it was on the disk, so its reader deleted it and it stays deleted),
   * and compaction flushes and forgets the rest.
   */
  @Test
  @Timeout(60)
  void restoreDeliveries_oneBeforeACheckpointOneAfter_onlyTheLaterRewrittenAndCompactionForgetsIt()
      throws Exception {
    Path spoolDir = dir.resolve("deliveries");
    Path mail = dir.resolve("mail");
    Durable durable = new Durable();
    Maildir boxes = new Maildir(mail, durable);
    byte[] a = job("a", 5000).bytes();
    byte[] b = job("b", 7000).bytes();
    try (PecSpool spool = new PecSpool(spoolDir, durable, boxes::sync)) {
      assertTrue(spool.store(job("j1", 100)));
      long before = durable.fsyncs();
      assertTrue(boxes.deliver("user1@pec1.test", "<a@pec1.test>", a));
      spool.delivered("j1", "user1@pec1.test", "<a@pec1.test>", a);
      assertEquals(0, durable.fsyncs() - before, "a delivery forces nothing");
      assertTrue(spool.checkpoint());
      assertEquals(1, durable.fsyncs() - before, "the checkpoint is one flush, counted");
      assertFalse(spool.checkpoint(), "nothing delivered since: no flush");
      assertTrue(boxes.deliver("user2@pec1.test", "<b@pec1.test>", b));
      spool.delivered("j1", "user2@pec1.test", "<b@pec1.test>", b);
      spool.commit("j1", List.of());
    }
    List<Path> delivered = mailFiles(mail);
    assertEquals(2, delivered.size(), delivered.toString());
    for (Path f : delivered) Files.delete(f);
    try (PecSpool spool = new PecSpool(spoolDir, new Durable(), boxes::sync)) {
      assertEquals(1, spool.restoreDeliveries(boxes));
      List<Path> back = mailFiles(mail);
      assertEquals(1, back.size(), back.toString());
      assertTrue(back.getFirst().toString().contains("user2@pec1.test/new/"), back.toString());
      assertArrayEquals(b, Files.readAllBytes(back.getFirst()), "rewritten byte for byte");
      assertEquals(1, spool.unsyncedDeliveries());
      assertTrue(spool.compactPast(0));
      assertEquals(
          0, spool.unsyncedDeliveries(), "compaction flushed the mailboxes and dropped the record");
    }
    try (PecSpool spool = new PecSpool(spoolDir, new Durable(), boxes::sync)) {
      assertEquals(0, spool.unsyncedDeliveries(), "none recorded in the compacted journal");
      assertEquals(List.of(), spool.pendingJobs());
    }
  }

  /**
   * A journal as written before it named its format: its records, with no version record first.
   * Written through the journal's own framing and the spool's own records, the version left out.
   */
  private static void writeUnversionedJournal(Path spoolDir) throws Exception {
    Files.createDirectories(spoolDir);
    try (SpoolJournal journal =
        new SpoolJournal(spoolDir.resolve("journal"), new Durable(), record -> {})) {
      journal.append(SpoolRecords.jobRecord(job("j1", 3000)));
      journal.append(SpoolRecords.jobRecord(job("j2", 2000)));
      PecSpool.Item[] items = {
        new PecSpool.Item(
            "j1/0",
            Route.MAILBOX,
            "ricevuta",
            "posta-certificata@pec1.test",
            List.of("user1@pec1.test"),
            "<a@pec1.test>",
            new byte[] {1, 2, 3},
            Instant.ofEpochMilli(1_700_000_000_000L))
      };
      journal.append(
          SpoolRecords.commitRecord("j1", Instant.ofEpochMilli(1_700_000_000_000L), items));
      journal.force();
    }
  }

  @Test
  @Timeout(60)
  void open_journalWrittenWithoutAVersion_readsItsJobsAndItems() throws Exception {
    Path spoolDir = dir.resolve("unversioned");
    writeUnversionedJournal(spoolDir);
    try (PecSpool spool = new PecSpool(spoolDir, new Durable())) {
      assertEquals(List.of("j2"), spool.pendingJobs(), "j2 waits, j1 is done");
      assertEquals(2000, spool.read("j2").bytes().length);
      assertEquals(Origin.INCOMING, spool.read("j2").origin());
      assertTrue(spool.committed("j1"));
      assertEquals(List.of("j1/0"), spool.pendingItems());
      PecSpool.Item item = spool.readItem("j1/0");
      assertEquals(Route.MAILBOX, item.route());
      assertEquals("<a@pec1.test>", item.messageId());
      assertEquals(1_700_000_000_000L, item.committed().toEpochMilli());
      assertArrayEquals(new byte[] {1, 2, 3}, item.bytes());
      assertTrue(spool.store(job("j3", 100)), "and it takes new jobs after them");
    }
    try (PecSpool again = new PecSpool(spoolDir, new Durable())) {
      assertEquals(List.of("j2", "j3"), again.pendingJobs(), "appended after the old records");
    }
  }

  @Test
  @Timeout(60)
  void open_journalOfAnUnknownVersion_isRefusedNamingBothFormats() throws Exception {
    Path spoolDir = Files.createDirectories(dir.resolve("future"));
    try (SpoolJournal journal =
        new SpoolJournal(spoolDir.resolve("journal"), new Durable(), record -> {})) {
      journal.append(SpoolRecords.versionRecord("pkibench.pec-journal/9"));
      journal.append(SpoolRecords.jobRecord(job("j1", 100)));
      journal.force();
    }
    IOException e = assertThrows(IOException.class, () -> new PecSpool(spoolDir, new Durable()));
    assertTrue(
        e.getMessage().contains("format pkibench.pec-journal/9")
            && e.getMessage().contains("this version reads " + SpoolRecords.FORMAT)
            && e.getMessage().contains(spoolDir.resolve("journal").toString()),
        e.getMessage());
  }

  @Test
  @Timeout(60)
  void open_newJournal_namesItsFormatFirstAndCompactionKeepsIt() throws Exception {
    Path spoolDir = dir.resolve("versioned");
    try (PecSpool spool = new PecSpool(spoolDir, new Durable())) {
      assertTrue(spool.store(job("j1", 100)));
      spool.commit("j1", List.of());
      assertTrue(spool.compactPast(0));
    }
    List<String> firstRecords = new ArrayList<>();
    try (SpoolJournal journal =
        new SpoolJournal(
            spoolDir.resolve("journal"),
            new Durable(),
            r -> {
              if (r.get() == SpoolRecords.VERSION) firstRecords.add(SpoolRecords.string(r));
            })) {
      assertEquals(List.of(SpoolRecords.FORMAT), firstRecords);
    }
  }
}
