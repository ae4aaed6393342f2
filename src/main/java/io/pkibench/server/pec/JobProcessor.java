package io.pkibench.server.pec;

import io.pkibench.formats.pec.Outgoing;
import io.pkibench.formats.pec.PecProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The provider's workers: each takes an acknowledged job from the queue, does the provider's part
 * ({@link PecProvider#accept} or {@link PecProvider#receive}), hands the results over where it can
 * and commits the rest for the {@link Carrier}. A job the disk cannot take now is retried later (by
 * the provider's clock); one that can never be processed is set aside.
 */
final class JobProcessor {
  /** The longest wait between two attempts at a job the disk could not take. */
  private static final Duration RETRY_CEILING = Duration.ofSeconds(15);

  private static final Duration FIRST_RETRY = Duration.ofMillis(250);

  private final String domain;
  private final Path spoolDir;
  private final PecProvider provider;
  private final PecSpool spool;
  private final Maildir mailboxes;
  private final Carrier carrier;
  private final ProviderStats stats;
  private final ProviderLog log;
  private final InstantSource clock;
  private final BlockingQueue<String> jobs;
  private final Map<String, Integer> retries = new ConcurrentHashMap<>();

  /** Jobs to try again, by when: put back on the queue by the first worker to see them due. */
  private final Map<String, Instant> retryAt = new ConcurrentHashMap<>();

  private volatile boolean closing;

  JobProcessor(
      PecServer.Config config,
      PecProvider provider,
      PecSpool spool,
      Maildir mailboxes,
      Carrier carrier,
      ProviderStats stats,
      ProviderLog log,
      InstantSource clock,
      BlockingQueue<String> jobs) {
    this.domain = config.domain();
    this.spoolDir = config.spool();
    this.provider = provider;
    this.spool = spool;
    this.mailboxes = mailboxes;
    this.carrier = carrier;
    this.stats = stats;
    this.log = log;
    this.clock = clock;
    this.jobs = jobs;
  }

  /** One worker's loop, until {@link #stop}. */
  void work() {
    while (!closing) {
      queueDueRetries();
      String id;
      try {
        id = jobs.poll(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (id == null) continue;
      try {
        process(id);
        if (retries.remove(id) != null) log.sayOnce("process", null);
      } catch (PecSpool.DamagedFile e) {
        if (!closing) setAside(id, null, e);
      } catch (IOException e) {
        if (!closing) retryLater(id, e);
      } catch (Exception e) {
        if (!closing) setAside(id, spoolRead(id), e);
      }
    }
  }

  void stop() {
    closing = true;
  }

  private void queueDueRetries() {
    if (retryAt.isEmpty()) return;
    Instant now = clock.instant();
    for (var e : retryAt.entrySet()) {
      // removed by one worker only: the job is queued once
      if (!now.isBefore(e.getValue()) && retryAt.remove(e.getKey(), e.getValue()))
        jobs.add(e.getKey());
    }
  }

  /**
   * A job the disk could not take now (full, or gone read-only): it stays acknowledged in the spool
   * and is tried again, after 0.25 s doubling to {@link #RETRY_CEILING}, until the disk takes it.
   * Said once per streak, not per job.
   */
  private void retryLater(String id, IOException e) {
    int attempts = retries.merge(id, 1, Integer::sum);
    long delayMillis =
        Math.min(RETRY_CEILING.toMillis(), FIRST_RETRY.toMillis() << Math.min(attempts - 1, 16));
    log.sayOnce(
        "process",
        "cannot process acknowledged messages now ("
            + e.getMessage()
            + "); they stay in the spool "
            + spoolDir
            + " and are retried until the disk takes them");
    retryAt.put(id, clock.instant().plusMillis(delayMillis));
  }

  /**
   * A job that can never be processed (its file damaged, or our code failed on it): set aside in
   * {@code failed/} for a person, and, when we can still read who submitted it, its sender told by
   * a signed non-acceptance receipt.
   */
  private void setAside(String id, PecSpool.Job job, Exception e) {
    log.say(
        "job "
            + id
            + " cannot be processed and is set aside in "
            + spoolDir.resolve("failed")
            + ": "
            + e);
    retries.remove(id);
    try {
      List<PecSpool.Item> notice = new ArrayList<>();
      if (job != null && job.origin() == Origin.SUBMISSION && !job.mailFrom().isEmpty()) {
        String msgid = SmtpIntake.messageId(job.bytes());
        notice =
            Route.itemsFor(
                provider.nonAcceptance(
                    id,
                    job.mailFrom(),
                    job.rcpts(),
                    "",
                    msgid,
                    List.of(
                        "the provider could not process the message ("
                            + e.getClass().getSimpleName()
                            + "); it was not sent")),
                domain);
      }
      spool.fail(id, e.toString());
      if (!notice.isEmpty()) {
        String noticeId = Maildir.digest("set-aside\n" + id);
        spool.commit(noticeId, notice);
        for (String p : spool.itemsOf(noticeId)) carrier.carry(p);
      }
    } catch (Exception x) {
      log.say("cannot set job " + id + " aside: " + x.getMessage());
    }
  }

  private PecSpool.Job spoolRead(String id) {
    try {
      return spool.read(id);
    } catch (IOException e) {
      return null;
    }
  }

  private void process(String id) throws Exception {
    if (spool.committed(id)) {
      // queued twice (a retry after the commit): its results are carried as they are
      for (String item : spool.itemsOf(id)) carrier.carry(item);
      return;
    }
    if (!spool.waiting(id)) return; // set aside meanwhile: nothing left to do
    PecSpool.Job job = spool.read(id);
    List<Outgoing> out =
        job.origin() == Origin.SUBMISSION
            ? provider.accept(id, job.mailFrom(), job.rcpts(), job.bytes())
            : provider.receive(id, job.mailFrom(), job.rcpts(), job.bytes());
    List<PecSpool.Item> items = new ArrayList<>();
    for (Outgoing o : out) items.addAll(Route.itemsFor(o, domain));
    // What must be on the disk before what others see. J (the job) is forced before the 250 that
    // took it (store). Nothing else is forced here: a result relayed to a peer is forced there, by
    // the peer, before its 250; a mailbox delivery is written unforced and its W record appended
    // right after it, before this C (commit), so the force that makes C durable (any later
    // store's, shared) carries W with it, and a reopened spool rewrites from W what a power loss
    // took from the mailbox. Until C is on the disk, J is still waiting there and the job is
    // redone after a crash, with the same Message-IDs: the peer drops the relay again by job id,
    // the mailbox keeps one copy by name.
    spool.commit(id, deliveredHere(id, items));
    stats.processed.incrementAndGet();
    for (String item : spool.itemsOf(id)) carrier.carry(item);
  }

  /**
   * Hands the job's results over now, before its commit: to our own mailboxes, our own spool, and
   * peers that take them at once; returns the rest to commit for the carrier. Each such result was
   * an item file forced to the disk, then forced again where the carrier put it; now it is written
   * once, where it goes. A crash before the commit redoes the job, which issues the same
   * Message-IDs (they derive from the job id), so the mailbox, the spool and the peer drop the
   * second copy as they drop a carrier's repeat. A result for an address that names no mailbox, or
   * for a peer that does not take it now, is left to the carrier, which sets it aside or retries as
   * before.
   */
  private List<PecSpool.Item> deliveredHere(String job, List<PecSpool.Item> items)
      throws IOException {
    List<PecSpool.Item> rest = new ArrayList<>();
    for (PecSpool.Item item : items) {
      switch (item.route()) {
        case Route.Mailbox m -> {
          try {
            for (String rcpt : item.to()) {
              if (mailboxes.deliver(rcpt, item.messageId(), item.bytes()))
                stats.delivered.incrementAndGet();
              // recorded even when it was there already: a redone job may find a copy its first run
              // wrote and never forced
              spool.delivered(job, rcpt, item.messageId(), item.bytes());
            }
          } catch (Maildir.NotAMailbox e) {
            rest.add(item);
          }
        }
        case Route.Self s -> carrier.storeForOurUsers(item);
        case Route.Relay r -> {
          if (carrier.relayNow(item, r.domain())) stats.relayed.incrementAndGet();
          else rest.add(item);
        }
      }
    }
    return rest;
  }
}
