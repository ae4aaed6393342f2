package io.pkibench.server.pec;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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

  private static final String JOB_MAGIC = "pkibench.pec-job/1";
  private static final byte JOB = 'J';
  private static final byte COMMIT = 'C';
  private static final byte CARRIED = 'K';
  private static final byte FAILED = 'F';
  private static final byte DONE = 'D';
  private static final byte DELIVERED = 'W';
  private static final byte SYNCED = 'S';

  /**
   * A message acknowledged over SMTP: {@code submission} from one of our users, or {@code incoming}
   * from anyone else.
   */
  record Job(String id, String origin, String mailFrom, List<String> rcpts, byte[] bytes) {
    Job {
      rcpts = List.copyOf(rcpts);
    }
  }

  /**
   * Something to carry: {@code route} is {@code mailbox}, {@code relay:DOMAIN} or {@code self} (an
   * envelope for our own users); {@code ref} ({@code JOBID/N}) and {@code committed} are null until
   * its job is committed.
   */
  record Item(
      String ref,
      String route,
      String kind,
      String envelopeFrom,
      List<String> to,
      String messageId,
      byte[] bytes,
      Instant committed) {
    Item(
        String route,
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

  PecSpool(Path dir, Durable durable) throws IOException {
    this(dir, durable, null);
  }

  /**
   * A spool that records mailbox deliveries, made durable by {@code mailboxesSync} at each
   * checkpoint.
   */
  PecSpool(Path dir, Durable durable, GroupCommit.Sync mailboxesSync) throws IOException {
    this.dir = dir;
    this.mailboxesSync = mailboxesSync;
    for (String sub : List.of("failed", "tmp")) Files.createDirectories(dir.resolve(sub));
    try {
      this.journal = new SpoolJournal(dir.resolve("journal"), durable, this::replay);
    } catch (UncheckedIOException e) {
      throw e.getCause();
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
          journal.append(jobRecord(job));
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
    Instant now = Instant.now();
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
    byte[] record = commitRecord(id, now, committed);
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
    if (job != null) {
      String header =
          String.join("\t", JOB_MAGIC, job.origin(), job.mailFrom(), String.join(",", job.rcpts()))
              + "\n";
      Files.write(
          dir.resolve("failed").resolve(id + ".job"),
          concat(header.getBytes(StandardCharsets.UTF_8), job.bytes()));
    }
    Files.writeString(dir.resolve("failed").resolve(id + ".why"), reason + "\n");
    mutate(
        () -> {
          journal.append(idRecord(FAILED, id));
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
    String name = ref.replace('/', '-') + ".out";
    String header =
        String.join(
                "\t",
                item.route(),
                item.kind(),
                item.envelopeFrom(),
                String.join(",", item.to()),
                item.messageId())
            + "\n";
    Files.write(
        dir.resolve("failed").resolve(name),
        concat(header.getBytes(StandardCharsets.UTF_8), item.bytes()));
    Files.writeString(dir.resolve("failed").resolve(name + ".why"), reason + "\n");
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
          journal.append(carriedRecord(id, n));
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
          journal.append(deliveredRecord(seq, job, address, messageId, bytes));
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
          journal.append(syncedRecord(upTo));
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
        List<String> ids = new ArrayList<>(done);
        for (int from = 0; from < ids.size(); from += 10_000)
          live.add(doneRecord(ids.subList(from, Math.min(ids.size(), from + 10_000))));
        for (Job job : waiting.values()) live.add(jobRecord(job));
        for (var e : outgoing.entrySet()) {
          Item[] items = e.getValue();
          live.add(
              commitRecord(
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
        case JOB -> {
          Job job = new Job(string(r), string(r), string(r), strings(r), bytes(r));
          if (!done.contains(job.id())) waiting.put(job.id(), job);
        }
        case COMMIT -> {
          String id = string(r);
          Instant at = Instant.ofEpochMilli(r.getLong());
          Item[] items = new Item[r.getInt()];
          int live = r.getInt();
          for (int k = 0; k < live; k++) {
            int n = r.getInt();
            items[n] =
                new Item(
                    id + "/" + n,
                    string(r),
                    string(r),
                    string(r),
                    strings(r),
                    string(r),
                    bytes(r),
                    at);
          }
          waiting.remove(id);
          done.add(id);
          if (live > 0) outgoing.put(id, items);
        }
        case CARRIED -> markCarried(string(r), r.getInt());
        case FAILED -> {
          String id = string(r);
          waiting.remove(id);
          done.add(id);
        }
        case DONE -> done.addAll(strings(r));
        case DELIVERED -> {
          long seq = r.getLong();
          Delivery d = new Delivery(seq, string(r), string(r), string(r), bytes(r));
          deliverySeq = Math.max(deliverySeq, seq);
          unsynced.put(d.address() + "\n" + d.messageId(), d);
        }
        case SYNCED -> {
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

  private static byte[] jobRecord(Job job) throws IOException {
    Record r = new Record(JOB, job.bytes().length);
    r.string(job.id())
        .string(job.origin())
        .string(job.mailFrom())
        .strings(job.rcpts())
        .bytes(job.bytes());
    return r.done();
  }

  private static byte[] commitRecord(String id, Instant at, Item[] items) throws IOException {
    int live = 0;
    long size = 0;
    for (Item it : items) {
      if (it != null) {
        live++;
        size += it.bytes().length;
      }
    }
    Record r = new Record(COMMIT, (int) Math.min(size, SpoolJournal.MAX_RECORD_BYTES));
    r.string(id);
    r.out.writeLong(at.toEpochMilli());
    r.out.writeInt(items.length);
    r.out.writeInt(live);
    for (int n = 0; n < items.length; n++) {
      Item it = items[n];
      if (it == null) continue;
      r.out.writeInt(n);
      r.string(it.route())
          .string(it.kind())
          .string(it.envelopeFrom())
          .strings(it.to())
          .string(it.messageId())
          .bytes(it.bytes());
    }
    return r.done();
  }

  private static byte[] carriedRecord(String id, int n) throws IOException {
    Record r = new Record(CARRIED, 0);
    r.string(id);
    r.out.writeInt(n);
    return r.done();
  }

  private static byte[] deliveredRecord(
      long seq, String job, String address, String messageId, byte[] bytes) throws IOException {
    Record r = new Record(DELIVERED, bytes.length);
    r.out.writeLong(seq);
    return r.string(job).string(address).string(messageId).bytes(bytes).done();
  }

  private static byte[] syncedRecord(long upTo) throws IOException {
    Record r = new Record(SYNCED, 0);
    r.out.writeLong(upTo);
    return r.done();
  }

  private static byte[] idRecord(byte type, String id) throws IOException {
    return new Record(type, 0).string(id).done();
  }

  private static byte[] doneRecord(List<String> ids) throws IOException {
    return new Record(DONE, ids.size() * 30).strings(ids).done();
  }

  /**
   * A record being written: its type, then strings (UTF-8, length first) and byte arrays (length
   * first).
   */
  private static final class Record {
    final ByteArrayOutputStream bytes;
    final DataOutputStream out;

    Record(byte type, int payloadBytes) throws IOException {
      bytes = new ByteArrayOutputStream(256 + payloadBytes);
      out = new DataOutputStream(bytes);
      out.writeByte(type);
    }

    Record string(String s) throws IOException {
      return bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    Record strings(List<String> list) throws IOException {
      out.writeInt(list.size());
      for (String s : list) string(s);
      return this;
    }

    Record bytes(byte[] b) throws IOException {
      out.writeInt(b.length);
      out.write(b);
      return this;
    }

    byte[] done() {
      return bytes.toByteArray();
    }
  }

  private static String string(ByteBuffer r) {
    return new String(bytes(r), StandardCharsets.UTF_8);
  }

  private static List<String> strings(ByteBuffer r) {
    int n = r.getInt();
    if (n < 0 || n > r.remaining()) throw new IllegalArgumentException("a list of " + n);
    List<String> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) list.add(string(r));
    return list;
  }

  private static byte[] bytes(ByteBuffer r) {
    int n = r.getInt();
    if (n < 0 || n > r.remaining())
      throw new IllegalArgumentException("a field of " + n + " bytes");
    byte[] b = new byte[n];
    r.get(b);
    return b;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] all = new byte[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (Stream<Path> s = Files.walk(p)) {
      for (Path x : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(x);
    }
  }
}
