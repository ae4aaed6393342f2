package io.pkibench.server.pec;

import io.pkibench.formats.pec.DocumentKind;
import io.pkibench.formats.pec.Outgoing;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.SmtpClient;
import io.pkibench.plan.Durations;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The provider's carrier: puts the results of done jobs into our Maildirs, back into our own spool
 * (an envelope for our own users), or relays them over SMTP to the peer providers, retrying a peer
 * that is down each round and giving an item up once {@code --relay-deadline} has passed since its
 * commit (by the provider's clock).
 */
final class Carrier {
  /**
   * How often the mailboxes are flushed for the deliveries made meanwhile (one flush for all of
   * them, where each paid a file and a directory fsync): it bounds the journal's delivery records,
   * and the deliveries a restart checks.
   */
  private static final Duration CHECKPOINT_EVERY = Duration.ofSeconds(10);

  private final PecServer.Config config;
  private final PecProvider provider;
  private final PecSpool spool;
  private final Maildir mailboxes;
  private final RelayConnections relays;
  private final ProviderStats stats;
  private final ProviderLog log;
  private final InstantSource clock;
  private final Consumer<String> enqueue;
  private final Set<String> carrying = ConcurrentHashMap.newKeySet();
  private final Map<String, Boolean> peerDown = new ConcurrentHashMap<>();
  private long lastCheckpoint = System.nanoTime();
  private volatile boolean closing;

  /** {@code enqueue} hands a job stored in our own spool to the workers. */
  Carrier(
      PecServer.Config config,
      PecProvider provider,
      PecSpool spool,
      Maildir mailboxes,
      RelayConnections relays,
      ProviderStats stats,
      ProviderLog log,
      InstantSource clock,
      Consumer<String> enqueue) {
    this.config = config;
    this.provider = provider;
    this.spool = spool;
    this.mailboxes = mailboxes;
    this.relays = relays;
    this.stats = stats;
    this.log = log;
    this.clock = clock;
    this.enqueue = enqueue;
  }

  /** Carries every pending item each half second, until {@link #stop}; {@code eachRound} after. */
  void carryLoop(Runnable eachRound) {
    while (!closing) {
      try {
        for (String item : spool.pendingItems()) {
          if (closing) return;
          carry(item);
        }
        if (System.nanoTime() - lastCheckpoint >= CHECKPOINT_EVERY.toNanos()) {
          // a flush that fails is tried again at the next period, not every round
          lastCheckpoint = System.nanoTime();
          try {
            spool.checkpoint();
            log.ended("checkpoint");
          } catch (IOException e) {
            log.sayOnce(
                "checkpoint",
                "cannot flush the mailboxes ("
                    + e.getMessage()
                    + "); their deliveries stay recorded in the journal meanwhile");
          }
        }
        spool.compactPast(PecSpool.COMPACT_AT_BYTES);
        eachRound.run();
        Thread.sleep(500);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        if (!closing) log.say("the carrier: " + e.getMessage());
      }
    }
  }

  void stop() {
    closing = true;
  }

  /**
   * Carries one item unless another thread is at it; an item that cannot go now stays for the next
   * round.
   */
  void carry(String file) {
    if (!carrying.add(file)) return;
    try {
      PecSpool.Item item = spool.readItem(file);
      if (item == null) return; // carried meanwhile
      switch (item.route()) {
        case Route.Mailbox m -> {
          for (String rcpt : item.to()) {
            try {
              if (mailboxes.deliver(rcpt, item.messageId(), item.bytes()))
                stats.delivered.incrementAndGet();
              // before the carried record below: see JobProcessor.process
              spool.delivered(file, rcpt, item.messageId(), item.bytes());
            } catch (Maildir.NotAMailbox e) {
              // only a job spooled before RCPT checked addresses can get here: no later round can
              // deliver it
              spool.setAside(file, e.getMessage());
              saySetAside(item, e.getMessage());
              return;
            }
          }
        }
        case Route.Self s -> storeForOurUsers(item);
        case Route.Relay r -> {
          if (!relay(item, r.domain())) return;
          stats.relayed.incrementAndGet();
        }
      }
      spool.carried(file);
      log.ended("carry");
    } catch (Exception e) {
      // said once per kind of problem: a full disk would otherwise say it for every item, every
      // half second
      if (!closing)
        log.sayOnce(
            "carry",
            "cannot carry items yet ("
                + e.getMessage()
                + "); they stay in the spool "
                + config.spool());
    } finally {
      carrying.remove(file);
    }
  }

  /**
   * An envelope for our own users, stored in our own spool as an incoming job (dropped there when
   * it is known already) and handed to the workers.
   */
  void storeForOurUsers(PecSpool.Item item) throws IOException {
    String id = selfJobId(item);
    if (spool.store(
        new PecSpool.Job(id, Origin.INCOMING, item.envelopeFrom(), item.to(), item.bytes())))
      enqueue.accept(id);
  }

  /**
   * The job id of an envelope for our own users, the same whichever path stores it: its duplicate
   * key.
   */
  private static String selfJobId(PecSpool.Item item) {
    return Maildir.digest(
        Origin.INCOMING.spoolName()
            + "\n"
            + item.envelopeFrom()
            + "\n"
            + String.join(",", item.to())
            + "\n"
            + item.messageId());
  }

  /**
   * Relays an item to its peer now, while its job is still acknowledged and not done: true once the
   * peer has taken it (and so stored it, before its answer). Anything else (no route, a peer known
   * to be down, a refusal, a timeout) leaves it to be committed and carried, with the carrier's
   * retries, deadlines and refusals.
   */
  boolean relayNow(PecSpool.Item item, String domain) {
    String peer = config.peers().get(domain);
    if (peer == null || peerDown.containsKey(domain)) return false;
    try {
      send(peer, item);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Sends {@code item} to {@code peer}, HOST:PORT as {@code --peer} gave it. */
  private void send(String peer, PecSpool.Item item) throws IOException {
    int colon = peer.lastIndexOf(':');
    relays.send(
        peer.substring(0, colon),
        Integer.parseInt(peer.substring(colon + 1)),
        item.envelopeFrom(),
        item.to(),
        item.bytes());
  }

  private boolean relay(PecSpool.Item item, String domain) throws IOException {
    String peer = config.peers().get(domain);
    if (peer == null) {
      if (peerDown.putIfAbsent(domain, true) == null) {
        log.say(
            "no route to "
                + domain
                + " (give --peer "
                + domain
                + "=HOST:PORT); its messages wait in the spool up to "
                + Durations.format(config.relayDeadline()));
      }
      return pastDeadline(item, "no route to " + domain);
    }
    try {
      send(peer, item);
      if (peerDown.remove(domain) != null)
        log.say(domain + " at " + peer + " is back; the waiting messages go out");
      return true;
    } catch (SmtpClient.Refusal e) {
      if (e.permanent()) {
        refusedForGood(item, domain, e);
        return true;
      }
      return waitFor(item, domain, peer, e);
    } catch (IOException e) {
      return waitFor(item, domain, peer, e);
    }
  }

  private boolean waitFor(PecSpool.Item item, String domain, String peer, IOException e)
      throws IOException {
    if (peerDown.putIfAbsent(domain, true) == null) {
      log.say(
          domain
              + " at "
              + peer
              + " does not take mail now ("
              + e.getMessage()
              + "); messages wait and are retried");
    }
    return pastDeadline(item, domain + " at " + peer + " did not take it (" + e.getMessage() + ")");
  }

  /**
   * An item that could not be relayed within {@code --relay-deadline} of its commit is given up as
   * a refusal for good: a transport envelope's sender gets a non-delivery notice (the rules' 24
   * hours), anything else is set aside. True when it was given up (it leaves the queue), false
   * while it waits.
   */
  private boolean pastDeadline(PecSpool.Item item, String why) throws IOException {
    Instant committed = item.committed();
    if (clock.instant().isBefore(committed.plus(config.relayDeadline()))) return false;
    giveUp(item, why + " within " + Durations.format(config.relayDeadline()), false);
    return true;
  }

  /**
   * The peer refused an item for good (5xx): trying again cannot help. A transport envelope is
   * answered by a non-delivery notice to its sender, per the rules, committed before the envelope
   * leaves the spool; any other document is set aside in {@code failed/} with the reply, and said
   * in the log.
   */
  private void refusedForGood(PecSpool.Item item, String domain, SmtpClient.Refusal refusal)
      throws IOException {
    giveUp(item, domain + " refused it: " + refusal.getMessage(), refusal.code() == 550);
  }

  /**
   * An item given up for {@code reason}: a transport envelope answered by a non-delivery notice,
   * anything else set aside.
   */
  private void giveUp(PecSpool.Item item, String reason, boolean noSuchRecipient)
      throws IOException {
    if (item.kind().equals(DocumentKind.TRANSPORT.value)) {
      String id = Maildir.digest("refused\n" + item.ref());
      if (!spool.known(id)) {
        try {
          Outgoing notice =
              provider.nonDelivery(id, item.bytes(), item.to(), reason, noSuchRecipient);
          spool.commit(id, Route.itemsFor(notice, config.domain()));
        } catch (IOException e) {
          throw e;
        } catch (Exception e) {
          throw new IOException(
              "cannot make the non-delivery notice for " + item.messageId() + ": " + e.getMessage(),
              e);
        }
        for (String p : spool.itemsOf(id)) carry(p);
      }
      log.say(
          "envelope "
              + item.messageId()
              + " not delivered ("
              + reason
              + "); its sender gets a non-delivery notice");
    } else {
      spool.setAside(item.ref(), reason);
      saySetAside(item, reason);
    }
  }

  private void saySetAside(PecSpool.Item item, String reason) {
    log.say(
        item.kind()
            + " "
            + item.messageId()
            + " set aside in "
            + config.spool().resolve("failed")
            + " ("
            + reason
            + ")");
  }
}
