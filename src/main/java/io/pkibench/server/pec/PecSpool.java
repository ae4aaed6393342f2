package io.pkibench.server.pec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The provider's durable spool. A message is acknowledged over SMTP only once its job file is on the
 * disk ({@link #store}); a job's results are committed in one rename of a directory ({@link #commit}),
 * then the job is marked done and removed; each result is removed once carried ({@link #carried}). A
 * provider killed at any point and restarted finds every acknowledged message either still a job or
 * committed, never both, and redoes nothing that was carried: job ids are the receiving side's
 * duplicate key, so a job stored again (the sender retrying) is recognised and dropped.
 *
 * <pre>
 * incoming/ID.job       acknowledged, not yet processed
 * outgoing/ID/N.out     processed: what is left to carry (to a mailbox, a peer, or back to ourselves)
 * done/ID               processed: the mark that keeps a retried message from being done twice
 * failed/ID.job         a job that can never be processed (damaged, or our code failed on it), kept for a person
 *                       to look at; a disk that cannot take a job now (full) leaves it in incoming/, retried
 * tmp/                  files being written
 * </pre>
 */
final class PecSpool {
  private static final String JOB_MAGIC = "pkibench.pec-job/1";
  private static final String OUT_MAGIC = "pkibench.pec-out/1";

  /** A message acknowledged over SMTP: {@code submission} from one of our users, or {@code incoming} from anyone else. */
  record Job(String id, String origin, String mailFrom, List<String> rcpts, byte[] bytes) {
    Job {
      rcpts = List.copyOf(rcpts);
    }
  }

  /** Something to carry: {@code route} is {@code mailbox}, {@code relay:DOMAIN} or {@code self} (an envelope for our own users). */
  record Item(Path file, String route, String kind, String envelopeFrom, List<String> to, String messageId, byte[] bytes) {}

  private final Path dir;
  private final Durable durable;
  /** Locks by job id (striped): a job's known-check and its write are one step against a retry of the same id. */
  private final Object[] storing = java.util.stream.IntStream.range(0, 64).mapToObj(i -> new Object()).toArray();

  PecSpool(Path dir, Durable durable) throws IOException {
    this.dir = dir;
    this.durable = durable;
    for (String sub : List.of("incoming", "outgoing", "done", "failed", "tmp")) Files.createDirectories(dir.resolve(sub));
  }

  Path dir() {
    return dir;
  }

  /**
   * False when the job is known already (stored, or done): the sender's retry of a message we have. Jobs of different
   * ids are stored at once (only one id's check and write exclude each other), so their directory fsyncs are shared.
   */
  boolean store(Job job) throws IOException {
    synchronized (storing[Math.floorMod(job.id().hashCode(), storing.length)]) {
      if (known(job.id())) return false;
      String header = String.join("\t", JOB_MAGIC, job.origin(), job.mailFrom(), String.join(",", job.rcpts())) + "\n";
      durable.write(dir.resolve("tmp").resolve(job.id() + ".job"), dir.resolve("incoming").resolve(job.id() + ".job"),
          header.getBytes(StandardCharsets.UTF_8), job.bytes());
      return true;
    }
  }

  boolean known(String id) {
    return Files.exists(dir.resolve("incoming").resolve(id + ".job")) || Files.exists(dir.resolve("done").resolve(id))
        || Files.exists(dir.resolve("outgoing").resolve(id));
  }

  /** A spool file that is not what we wrote: no later attempt can read it. */
  static final class DamagedFile extends IOException {
    DamagedFile(String message) {
      super(message);
    }
  }

  Job read(String id) throws IOException {
    byte[] all = Files.readAllBytes(dir.resolve("incoming").resolve(id + ".job"));
    int nl = indexOf(all, (byte) '\n');
    String[] f = new String(all, 0, nl, StandardCharsets.UTF_8).split("\t", -1);
    if (f.length != 4 || !f[0].equals(JOB_MAGIC)) throw new DamagedFile(dir.resolve("incoming").resolve(id + ".job") + " is not a pkibench PEC job");
    return new Job(id, f[1], f[2], f[3].isEmpty() ? List.of() : List.of(f[3].split(",")), Arrays.copyOfRange(all, nl + 1, all.length));
  }

  /**
   * The jobs left after a restart, oldest first; a job found committed (the provider died between the
   * commit and removing the job) is finished here instead.
   */
  List<String> pendingJobs() throws IOException {
    deleteTree(dir.resolve("tmp"));
    Files.createDirectories(dir.resolve("tmp"));
    List<String> pending = new ArrayList<>();
    try (Stream<Path> jobs = Files.list(dir.resolve("incoming"))) {
      for (Path p : jobs.sorted(Comparator.comparing(PecSpool::modified)).toList()) {
        String id = p.getFileName().toString().replace(".job", "");
        if (Files.exists(dir.resolve("outgoing").resolve(id)) || Files.exists(dir.resolve("done").resolve(id))) finish(id);
        else pending.add(id);
      }
    }
    return pending;
  }

  /**
   * True when the job's results are committed already: an earlier attempt got past the rename and
   * failed after it (say, on a full disk), so this one only finishes it.
   */
  boolean committed(String id) {
    return Files.exists(dir.resolve("outgoing").resolve(id)) || Files.exists(dir.resolve("done").resolve(id));
  }

  /** True while the job is acknowledged and not yet processed. */
  boolean waiting(String id) {
    return Files.exists(dir.resolve("incoming").resolve(id + ".job"));
  }

  /** Marks a committed job done and removes it: the end of {@link #commit}, for a job found committed. */
  void finishCommitted(String id) throws IOException {
    finish(id);
  }

  /** Commits a job's results in one rename, then marks it done and removes it. */
  void commit(String id, List<Item> items) throws IOException {
    Path staging = dir.resolve("tmp").resolve(id + ".out");
    deleteTree(staging);
    Files.createDirectories(staging);
    try {
      for (int i = 0; i < items.size(); i++) {
        Item it = items.get(i);
        String header = String.join("\t", OUT_MAGIC, it.route(), it.kind(), it.envelopeFrom(), String.join(",", it.to()), it.messageId()) + "\n";
        durable.writeInPlace(staging.resolve(i + ".out"), header.getBytes(StandardCharsets.UTF_8), it.bytes());
      }
    } catch (IOException e) {
      deleteTree(staging); // the space a retry will need
      throw e;
    }
    if (!items.isEmpty()) {
      durable.forceDirectory(staging); // every item's entry at once: the directory is renamed into place only complete
      Files.move(staging, dir.resolve("outgoing").resolve(id), StandardCopyOption.ATOMIC_MOVE);
      durable.forceDirectory(dir.resolve("outgoing"));
    } else {
      Files.delete(staging);
    }
    finish(id);
  }

  private void finish(String id) throws IOException {
    durable.write(dir.resolve("tmp").resolve(id + ".done"), dir.resolve("done").resolve(id), new byte[0]);
    // The job's removal is not forced: the done mark is durable first, and a job a crash brings back beside its mark
    // is only finished again at the restart (pendingJobs), never redone.
    Files.deleteIfExists(dir.resolve("incoming").resolve(id + ".job"));
  }

  /** A job our code failed on: set aside with the reason, so the queue goes on. */
  void fail(String id, String reason) throws IOException {
    Path job = dir.resolve("incoming").resolve(id + ".job");
    Files.move(job, dir.resolve("failed").resolve(id + ".job"), StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(dir.resolve("failed").resolve(id + ".why"), reason + "\n");
    durable.write(dir.resolve("tmp").resolve(id + ".done"), dir.resolve("done").resolve(id), new byte[0]);
  }

  /** An item no one will take: moved to {@code failed/} with the reason beside it, out of the carrier's way. */
  void setAside(Path item, String reason) throws IOException {
    String name = item.getParent().getFileName() + "-" + item.getFileName();
    Files.move(item, dir.resolve("failed").resolve(name), StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(dir.resolve("failed").resolve(name + ".why"), reason + "\n");
  }

  /** Every item still to carry, oldest job first. */
  List<Path> pendingItems() throws IOException {
    List<Path> items = new ArrayList<>();
    try (Stream<Path> jobs = Files.list(dir.resolve("outgoing"))) {
      for (Path job : jobs.sorted(Comparator.comparing(PecSpool::modified)).toList()) items.addAll(itemsOf(job));
    }
    return items;
  }

  List<Path> itemsOf(String id) throws IOException {
    Path job = dir.resolve("outgoing").resolve(id);
    return Files.isDirectory(job) ? itemsOf(job) : List.of();
  }

  private static List<Path> itemsOf(Path job) throws IOException {
    List<Path> items = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(job, "*.out")) {
      s.forEach(items::add);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    items.sort(Comparator.comparing(p -> p.getFileName().toString()));
    return items;
  }

  Item readItem(Path file) throws IOException {
    byte[] all = Files.readAllBytes(file);
    int nl = indexOf(all, (byte) '\n');
    String[] f = new String(all, 0, nl, StandardCharsets.UTF_8).split("\t", -1);
    if (f.length != 6 || !f[0].equals(OUT_MAGIC)) throw new DamagedFile(file + " is not a pkibench PEC spool item");
    return new Item(file, f[1], f[2], f[3], List.of(f[4].split(",")), f[5], Arrays.copyOfRange(all, nl + 1, all.length));
  }

  /** An item is carried: removed, and its job's directory with it once empty. */
  void carried(Path file) throws IOException {
    // Not forced: an item whose removal a crash undoes is carried again, and every destination drops a
    // second copy (a Maildir by file name, a peer by Message-ID); the fsync would buy nothing.
    Files.deleteIfExists(file);
    Path job = file.getParent();
    try (Stream<Path> left = Files.list(job)) {
      if (left.findAny().isEmpty()) Files.deleteIfExists(job);
    } catch (NoSuchFileException e) {
      // another thread removed it
    }
  }

  int count(String sub) {
    try (Stream<Path> s = Files.list(dir.resolve(sub))) {
      return (int) s.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }

  private static int indexOf(byte[] bytes, byte b) throws IOException {
    for (int i = 0; i < bytes.length; i++) if (bytes[i] == b) return i;
    throw new DamagedFile("a spool file without its header line");
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (Stream<Path> s = Files.walk(p)) {
      for (Path x : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(x);
    }
  }
}
