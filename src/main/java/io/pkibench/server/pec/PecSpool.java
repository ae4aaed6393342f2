package io.pkibench.server.pec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

/**
 * The provider's durable spool: one journal ({@link SpoolJournal}) where each change of a job's
 * state is one record. A message is acknowledged over SMTP only once its job record is forced
 * ({@link #store}), one fdatasync shared by every message stored meanwhile; a job's results and its
 * end are one record ({@link #commit}), and each result carried another ({@link #carried}). Those
 * two are not forced: a provider killed before they reach the disk finds the job still acknowledged
 * and does it again, which issues the same Message-IDs (they derive from the job id), so every
 * destination drops the second copy (a Maildir by file name, a peer by job id). Job ids are the
 * receiving side's duplicate key, so a job stored again (the sender retrying) is recognised and
 * dropped.
 *
 * <pre>
 * journal               J (job acknowledged), C (job done, its results to carry), K (a result carried or set aside),
 *                       F (job set aside), D (jobs done, written by compaction), W (a message written to a mailbox,
 *                       with its bytes), S (the mailboxes synced: every W up to a number is on the disk); a torn last
 *                       record is cut on opening
 * failed/ID.job         a job that can never be processed (damaged, or our code failed on it), kept for a person
 *                       to look at, with ID.why beside it; a result no one takes, as ID-N.out
 * tmp/                  files being written
 * </pre>
 *
 * The journal is rewritten with only what is live (compaction) once it passes {@link
 * #COMPACT_AT_BYTES}.
 *
 * <p>Mailbox deliveries are written unforced ({@link Maildir#deliver}); each is a W record appended
 * before the job's C (or the item's K) record, so any force that makes the job done durable makes
 * its deliveries' records durable too, and a reopened spool rewrites from them what a power loss
 * took from the mailboxes ({@link #restoreDeliveries}). A checkpoint ({@link #checkpoint}) flushes
 * the mailboxes' file system once for every delivery so far and drops their records: the journal
 * stays small and a message a reader deleted is not brought back by a later restart.
 */
final class PecSpool implements AutoCloseable {
  /** The journal's size past which its finished jobs are compacted away (to their ids alone). */
  static final long COMPACT_AT_BYTES = 32L << 20;

  /**
   * A message acknowledged over SMTP: {@code submission} from one of our users, or {@code incoming}
   * from anyone else.
   */
  record Job(String id, Origin origin, String mailFrom, List<String> rcpts, byte[] bytes) {
    Job {
      rcpts = List.copyOf(rcpts);
    }
  }

  /**
   * Something to carry, and where ({@link Route}); {@code ref} ({@code JOBID/N}) and {@code
   * committed} are null until its job is committed.
   */
  record Item(
      String ref,
      Route route,
      String kind,
      String envelopeFrom,
      List<String> to,
      String messageId,
      byte[] bytes,
      Instant committed) {
    Item(
        Route route,
        String kind,
        String envelopeFrom,
        List<String> to,
        String messageId,
        byte[] bytes) {
      this(null, route, kind, envelopeFrom, to, messageId, bytes, null);
    }
  }

  /**
   * A message written to a mailbox and not yet known to be on the disk: {@code seq} orders it
   * against checkpoints; {@code bytes} are held only when read back from the journal (to rewrite
   * it), null for one made by this process.
   */
  record Delivery(long seq, String job, String address, String messageId, byte[] bytes) {}

  private final Path dir;

  /**
   * Puts every delivery made so far on the disk (the mailboxes' file system flushed); null for a
   * spool that records none.
   */
  private final GroupCommit.Sync mailboxesSync;

  /**
   * The deliveries since the last checkpoint, by mailbox and Message-ID, guarded by {@link
   * #waiting}.
   */
  private final Map<String, Delivery> unsynced = new LinkedHashMap<>();

  private long deliverySeq;
  private final SpoolJournal journal;

  /**
   * Appends and forces share it; compaction takes it alone (it swaps the journal's file under
   * them).
   */
  private final ReadWriteLock compacting = new ReentrantReadWriteLock();

  /**
   * The state the journal holds, guarded by itself: jobs waiting (oldest first), jobs done, results
   * not carried yet.
   */
  private final Map<String, Job> waiting = new LinkedHashMap<>();

  private final Set<String> done = new HashSet<>();
  private final Map<String, Item[]> outgoing = new LinkedHashMap<>();

  /** Stamps each commit: a relay's deadline runs from it. */
  private final InstantSource clock;

  private final SetAsideFiles setAside;

  PecSpool(Path dir, Durable durable) throws IOException {
    this(dir, durable, null, InstantSource.system());
  }

  /** A spool that records mailbox deliveries, on the system clock. */
  PecSpool(Path dir, Durable durable, GroupCommit.Sync mailboxesSync) throws IOException {
    this(dir, durable, mailboxesSync, InstantSource.system());
  }

  /**
   * A spool that records mailbox deliveries, made durable by {@code mailboxesSync} at each
   * checkpoint.
   */
  PecSpool(Path dir, Durable durable, GroupCommit.Sync mailboxesSync, InstantSource clock)
      throws IOException {
    this.dir = dir;
    this.mailboxesSync = mailboxesSync;
    this.clock = clock;
    this.setAside = new SetAsideFiles(dir.resolve("failed"));
    for (String sub : List.of("failed", "tmp")) Files.createDirectories(dir.resolve(sub));
    try {
      this.journal = new SpoolJournal(dir.resolve("journal"), durable, this::replay);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    if (journal.sizeBytes() == 0) {
      // a new journal names its format first; one written before formats were named has none
      journal.append(SpoolRecords.versionRecord(SpoolRecords.FORMAT));
      journal.force();
    }
  }

  Path dir() {
    return dir;
  }

  /**
   * Bytes of a torn last record cut from the journal when it was opened: a message whose sender
   * never had its 250.
   */
  long tornBytes() {
    return journal.tornBytes();
  }

  /**
   * False when the job is known already (stored, or done): the sender's retry of a message we have.
   * Either way the job's record is on the disk when this returns, shared with every job stored
   * meanwhile.
   */
  boolean store(Job job) throws IOException {
    compacting.readLock().lock();
    try {
      boolean fresh;
      synchronized (waiting) {
        fresh = !known(job.id());
        if (fresh) {
          journal.append(SpoolRecords.jobRecord(job));
          waiting.put(job.id(), job);
        }
      }
      // a retry, too, waits for the force: its first copy may have been appended and not forced yet
      journal.force();
      return fresh;
    } finally {
      compacting.readLock().unlock();
    }
  }

  boolean known(String id) {
    synchronized (waiting) {
      return waiting.containsKey(id) || done.contains(id);
    }
  }

  /** A spool file that is not what we wrote: no later attempt can read it. */
  static final class DamagedFile extends IOException {
    DamagedFile(String message) {
      super(message);
    }
  }

  Job read(String id) throws IOException {
    synchronized (waiting) {
      Job job = waiting.get(id);
      if (job == null) throw new IOException("job " + id + " is not waiting in " + dir);
      return job;
    }
  }

  /**
   * The jobs acknowledged and not yet done, oldest first: after a restart, what is processed first.
   */
  List<String> pendingJobs() throws IOException {
    deleteTree(dir.resolve("tmp"));
    Files.createDirectories(dir.resolve("tmp"));
    synchronized (waiting) {
      return List.copyOf(waiting.keySet());
    }
  }

  /** True when the job is done: its results committed (or it was set aside). */
  boolean committed(String id) {
    synchronized (waiting) {
      return done.contains(id);
    }
  }

  /** True while the job is acknowledged and not yet processed. */
  boolean waiting(String id) {
    synchronized (waiting) {
      return waiting.containsKey(id);
    }
  }

  int waitingJobs() {
    synchronized (waiting) {
      return waiting.size();
    }
  }

  /**
   * Ends a job with the results left to carry, in one record; not forced (see the class comment).
   */
  void commit(String id, List<Item> items) throws IOException {
    Instant now = clock.instant();
    Item[] committed = new Item[items.size()];
    for (int i = 0; i < committed.length; i++) {
      Item it = items.get(i);
      committed[i] =
          new Item(
              id + "/" + i,
              it.route(),
              it.kind(),
              it.envelopeFrom(),
              it.to(),
              it.messageId(),
              it.bytes(),
              now);
    }
    byte[] record = SpoolRecords.commitRecord(id, now, committed);
    mutate(
        () -> {
          journal.append(record);
          waiting.remove(id);
          done.add(id);
          if (committed.length > 0) outgoing.put(id, committed);
        });
  }

  /** A job our code failed on: set aside with the reason, so the queue goes on. */
  void fail(String id, String reason) throws IOException {
    Job job;
    synchronized (waiting) {
      job = waiting.get(id);
    }
    setAside.job(id, job, reason);
    mutate(
        () -> {
          journal.append(SpoolRecords.idRecord(SpoolRecords.FAILED, id));
          waiting.remove(id);
          done.add(id);
        });
  }

  /**
   * An item no one will take: written to {@code failed/} with the reason beside it, out of the
   * carrier's way.
   */
  void setAside(String ref, String reason) throws IOException {
    Item item = readItem(ref);
    if (item == null) return;
    setAside.item(ref, item, reason);
    carried(ref);
  }

  /** Every item still to carry, oldest job first. */
  List<String> pendingItems() {
    synchronized (waiting) {
      List<String> refs = new ArrayList<>();
      for (Item[] items : outgoing.values())
        for (Item it : items) if (it != null) refs.add(it.ref());
      return refs;
    }
  }

  List<String> itemsOf(String id) {
    synchronized (waiting) {
      Item[] items = outgoing.get(id);
      if (items == null) return List.of();
      List<String> refs = new ArrayList<>();
      for (Item it : items) if (it != null) refs.add(it.ref());
      return refs;
    }
  }

  /** The item, or null once carried. */
  Item readItem(String ref) {
    int slash = ref.lastIndexOf('/');
    synchronized (waiting) {
      Item[] items = outgoing.get(ref.substring(0, slash));
      return items == null ? null : items[Integer.parseInt(ref.substring(slash + 1))];
    }
  }

  /**
   * An item is carried. Not forced: an item whose record a crash loses is carried again, and every
   * destination drops a second copy (a Maildir by file name, a peer by Message-ID); the fsync would
   * buy nothing.
   */
  void carried(String ref) throws IOException {
    int slash = ref.lastIndexOf('/');
    String id = ref.substring(0, slash);
    int n = Integer.parseInt(ref.substring(slash + 1));
    mutate(
        () -> {
          Item[] items = outgoing.get(id);
          if (items == null || items[n] == null) return;
          journal.append(SpoolRecords.carriedRecord(id, n));
          markCarried(id, n);
        });
  }

  /**
   * {@code bytes} were written to {@code address}'s mailbox for job {@code job}, unforced: one W
   * record, not forced either. The caller appends it after the write and before the job's commit
   * (or the item's carried record), which orders it before them in the journal: whichever force
   * makes those durable makes this one durable.
   */
  void delivered(String job, String address, String messageId, byte[] bytes) throws IOException {
    if (mailboxesSync == null)
      throw new IllegalStateException(
          "this spool was opened without the mailboxes' sync and records no deliveries");
    mutate(
        () -> {
          long seq = ++deliverySeq;
          journal.append(SpoolRecords.deliveredRecord(seq, job, address, messageId, bytes));
          unsynced.put(
              address + "\n" + messageId, new Delivery(seq, job, address, messageId, null));
        });
  }

  /**
   * After opening: every delivery the journal recorded since its last checkpoint, checked against
   * the mailboxes and rewritten whole where missing or not of its size (a power loss took it);
   * returns how many were rewritten. They stay recorded (the rewrite is unforced too) until the
   * next checkpoint.
   */
  int restoreDeliveries(Maildir mailboxes) throws IOException {
    List<Delivery> recorded;
    synchronized (waiting) {
      recorded = unsynced.values().stream().filter(d -> d.bytes() != null).toList();
    }
    int rewritten = 0;
    for (Delivery d : recorded)
      if (mailboxes.restore(d.address(), d.messageId(), d.bytes())) rewritten++;
    synchronized (waiting) {
      // checked: the bytes are in the journal still, no need to hold them here too
      for (Delivery d : recorded)
        unsynced.computeIfPresent(
            d.address() + "\n" + d.messageId(),
            (k, now) ->
                now.seq() == d.seq()
                    ? new Delivery(d.seq(), d.job(), d.address(), d.messageId(), null)
                    : now);
    }
    return rewritten;
  }

  int unsyncedDeliveries() {
    synchronized (waiting) {
      return unsynced.size();
    }
  }

  /**
   * Flushes the mailboxes once for every delivery recorded so far and says so in an S record (not
   * forced: lost, the next start merely checks those deliveries again); false when there was none
   * to flush. A delivery recorded while the flush runs stays for the next checkpoint.
   */
  boolean checkpoint() throws IOException {
    long upTo;
    synchronized (waiting) {
      if (unsynced.isEmpty()) return false;
      upTo =
          deliverySeq; // every delivery numbered so far wrote its file before it was numbered: the
      // flush covers it
    }
    mailboxesSync.run();
    mutate(
        () -> {
          journal.append(SpoolRecords.syncedRecord(upTo));
          unsynced.values().removeIf(d -> d.seq() <= upTo);
        });
    return true;
  }

  /**
   * Rewrites the journal with only what is live (waiting jobs, results not carried, the ids of
   * finished jobs) once it is past {@code atBytes}; true when it did. Appends wait meanwhile.
   */
  boolean compactPast(long atBytes) throws IOException {
    if (journal.sizeBytes() < atBytes) return false;
    checkpoint(); // outside the lock, so that the flush under it (for what is delivered meanwhile)
    // is short
    compacting.writeLock().lock();
    try {
      synchronized (waiting) {
        // the deliveries' records are not rewritten: the mailboxes are flushed instead, every
        // delivery recorded having written its file already
        if (!unsynced.isEmpty()) {
          mailboxesSync.run();
          unsynced.clear();
        }
        List<byte[]> live = new ArrayList<>();
        live.add(SpoolRecords.versionRecord(SpoolRecords.FORMAT));
        List<String> ids = new ArrayList<>(done);
        for (int from = 0; from < ids.size(); from += 10_000)
          live.add(SpoolRecords.doneRecord(ids.subList(from, Math.min(ids.size(), from + 10_000))));
        for (Job job : waiting.values()) live.add(SpoolRecords.jobRecord(job));
        for (var e : outgoing.entrySet()) {
          Item[] items = e.getValue();
          live.add(
              SpoolRecords.commitRecord(
                  e.getKey(),
                  items[0] != null ? items[0].committed() : firstCommitted(items),
                  items));
        }
        journal.rewrite(live);
      }
      return true;
    } finally {
      compacting.writeLock().unlock();
    }
  }

  /**
   * Forces what is appended (on a clean stop, so the next start redoes nothing) and closes the
   * journal.
   */
  @Override
  public void close() throws IOException {
    compacting.readLock().lock();
    try {
      journal.force();
      journal.close();
    } finally {
      compacting.readLock().unlock();
    }
  }

  private static Instant firstCommitted(Item[] items) {
    for (Item it : items) if (it != null) return it.committed();
    return Instant.EPOCH;
  }

  @FunctionalInterface
  private interface Change {
    void run() throws IOException;
  }

  /** One change appended and applied as one step, against compaction and every other change. */
  private void mutate(Change change) throws IOException {
    compacting.readLock().lock();
    try {
      synchronized (waiting) {
        change.run();
      }
    } finally {
      compacting.readLock().unlock();
    }
  }

  private void markCarried(String id, int n) {
    Item[] items = outgoing.get(id);
    if (items == null || n >= items.length) return;
    items[n] = null;
    for (Item it : items) if (it != null) return;
    outgoing.remove(id);
  }

  // ---------------------------------------------------------------- records

  /**
   * Applies one record read back from the journal (the constructor's replay: no other thread yet).
   */
  private void replay(ByteBuffer r) {
    try {
      byte type = r.get();
      switch (type) {
        case SpoolRecords.VERSION -> {
          String format = SpoolRecords.string(r);
          if (!format.equals(SpoolRecords.FORMAT))
            throw new UncheckedIOException(
                new IOException(
                    dir.resolve("journal")
                        + ": a spool journal of format "
                        + format
                        + ", this version reads "
                        + SpoolRecords.FORMAT
                        + " (and journals written before formats were named); open the spool with"
                        + " the pkibench that wrote it, or give another --spool"));
        }
        case SpoolRecords.JOB -> {
          Job job = SpoolRecords.readJob(r);
          if (!done.contains(job.id())) waiting.put(job.id(), job);
        }
        case SpoolRecords.COMMIT -> {
          String id = SpoolRecords.string(r);
          Item[] items = SpoolRecords.readCommitted(id, r);
          waiting.remove(id);
          done.add(id);
          for (Item it : items) {
            if (it != null) {
              outgoing.put(id, items);
              break;
            }
          }
        }
        case SpoolRecords.CARRIED -> markCarried(SpoolRecords.string(r), r.getInt());
        case SpoolRecords.FAILED -> {
          String id = SpoolRecords.string(r);
          waiting.remove(id);
          done.add(id);
        }
        case SpoolRecords.DONE -> done.addAll(SpoolRecords.strings(r));
        case SpoolRecords.DELIVERED -> {
          long seq = r.getLong();
          Delivery d =
              new Delivery(
                  seq,
                  SpoolRecords.string(r),
                  SpoolRecords.string(r),
                  SpoolRecords.string(r),
                  SpoolRecords.bytes(r));
          deliverySeq = Math.max(deliverySeq, seq);
          unsynced.put(d.address() + "\n" + d.messageId(), d);
        }
        case SpoolRecords.SYNCED -> {
          long upTo = r.getLong();
          deliverySeq = Math.max(deliverySeq, upTo);
          unsynced.values().removeIf(d -> d.seq() <= upTo);
        }
        default ->
            throw new UncheckedIOException(
                new DamagedFile(dir.resolve("journal") + ": a record of unknown type " + type));
      }
    } catch (BufferUnderflowException | IndexOutOfBoundsException | IllegalArgumentException e) {
      // its checksum held, so we wrote it: a record this version cannot read
      throw new UncheckedIOException(
          new DamagedFile(
              dir.resolve("journal") + ": a record this version cannot read (" + e + ")"));
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (Stream<Path> s = Files.walk(p)) {
      for (Path x : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(x);
    }
  }
}
