package io.pkibench.formats.pec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The original's reliability test: every message a provider acknowledged has, per the rules,
 * exactly one acceptance receipt in its sender's mailbox, its transport envelope in each
 * recipient's mailbox, one taking-charge receipt in the sending provider's mailbox from each
 * recipient's provider, and one delivery receipt per recipient in the sender's mailbox; all
 * correlated by {@code X-Riferimento-Message-ID} (the user's Message-ID) and, for delivery
 * receipts, the recipient in daticert.xml. A document missing is a loss, one too many a duplicate,
 * each listed by Message-ID.
 */
public final class ReliabilityCheck {
  private ReliabilityCheck() {}

  /** One message's problem: which document, for whom, how many were found against one expected. */
  public record Finding(String messageId, String document, String forWhom, int found) {
    public boolean lost() {
      return found == 0;
    }

    public String describe() {
      return messageId
          + ": "
          + document
          + (forWhom.isEmpty() ? "" : " for " + forWhom)
          + (found == 0 ? " missing" : " found " + found + " times");
    }
  }

  /**
   * The outcome: messages checked, those with a loss, those with a duplicate, and every finding.
   */
  public record Result(
      int messages,
      int documentsRead,
      List<String> lost,
      List<String> duplicated,
      List<Finding> findings,
      List<String> refused,
      List<String> undeliverable,
      List<String> anomalies,
      List<KindCount> byKind) {
    public boolean passed() {
      return lost.isEmpty() && duplicated.isEmpty();
    }

    public String summary() {
      return "reliability: "
          + messages
          + " messages, "
          + lost.size()
          + " lost, "
          + duplicated.size()
          + " duplicated";
    }

    /**
     * The documents in the mailboxes by type, as the original counted them: how many, and their
     * size in KB.
     */
    public String byKindLine() {
      return "by document type: "
          + String.join(", ", byKind.stream().map(KindCount::describe).toList());
    }
  }

  /**
   * The provider documents of one kind found in the mailboxes: how many, and their bytes on disk
   * (as delivered, headers included).
   */
  public record KindCount(DocumentKind kind, long count, long bytes) {
    public String describe() {
      return String.format(
          Locale.ROOT,
          "%s %d (%.0f KB, %.1f KB each)",
          kind.value,
          count,
          bytes / 1000.0,
          count == 0 ? 0 : bytes / 1000.0 / count);
    }
  }

  /** A provider document found in a mailbox, with what the check needs of it. */
  private record Found(
      String mailbox, DocumentKind kind, String reference, String deliveredTo, long bytes) {}

  /**
   * Checks again every half second while documents are missing and none is duplicated, until {@code
   * wait} has passed: receipts still on their way are not losses. A duplicate ends it at once
   * (waiting cannot remove one).
   */
  public static Result await(List<Path> mailboxRoots, List<SentMessage> sent, Duration wait)
      throws IOException, InterruptedException {
    return await(mailboxRoots, sent, wait, () -> false, Duration.ZERO);
  }

  /**
   * As {@link #await(List, List, Duration)}, ending sooner once nothing can still arrive: {@code
   * nothingInFlight} holds (e.g. both providers' spools are empty) and no new mailbox file has
   * appeared for {@code quiet}. A lost document otherwise costs the whole {@code wait}, though a
   * provider with nothing queued will never deliver it.
   */
  public static Result await(
      List<Path> mailboxRoots,
      List<SentMessage> sent,
      Duration wait,
      BooleanSupplier nothingInFlight,
      Duration quiet)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    // A delivered file never changes: each round reads only the files that arrived since the one
    // before.
    Map<Path, Optional<Found>> seen = new HashMap<>();
    Result r = check(mailboxRoots, sent, seen);
    int files = seen.size();
    long lastArrival = System.nanoTime();
    while (!r.passed() && r.duplicated().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(500);
      r = check(mailboxRoots, sent, seen);
      if (seen.size() != files) {
        files = seen.size();
        lastArrival = System.nanoTime();
      } else if (System.nanoTime() - lastArrival >= quiet.toNanos()
          && nothingInFlight.getAsBoolean()) {
        return r; // settled: what is missing now is lost
      }
    }
    return r;
  }

  public static Result check(List<Path> mailboxRoots, List<SentMessage> sent) throws IOException {
    return check(mailboxRoots, sent, new HashMap<>());
  }

  private static Result check(
      List<Path> mailboxRoots, List<SentMessage> sent, Map<Path, Optional<Found>> seen)
      throws IOException {
    List<Found> found = new ArrayList<>();
    int read = 0;
    for (Path root : mailboxRoots) {
      if (!Files.isDirectory(root))
        continue; // nothing delivered there yet: every document it should hold counts as missing
      try (Stream<Path> boxes = Files.list(root)) {
        for (Path box : boxes.filter(Files::isDirectory).sorted().toList()) {
          String mailbox = box.getFileName().toString().toLowerCase(Locale.ROOT);
          for (String sub : List.of("new", "cur")) {
            Path d = box.resolve(sub);
            if (!Files.isDirectory(d)) continue;
            try (Stream<Path> files = Files.list(d)) {
              for (Path f : files.sorted().toList()) {
                read++;
                Optional<Found> doc = seen.get(f);
                if (doc == null) {
                  doc = Optional.ofNullable(read(mailbox, f));
                  seen.put(f, doc);
                }
                doc.ifPresent(found::add);
              }
            }
          }
        }
      }
    }
    Map<String, List<Found>> byReference = new HashMap<>();
    for (Found f : found)
      if (f.reference() != null)
        byReference.computeIfAbsent(f.reference(), k -> new ArrayList<>()).add(f);
    List<Finding> findings = new ArrayList<>();
    Set<String> lost = new LinkedHashSet<>();
    Set<String> duplicated = new LinkedHashSet<>();
    List<String> refused = new ArrayList<>();
    List<String> undeliverable = new ArrayList<>();
    List<String> anomalies = new ArrayList<>();
    for (SentMessage m : sent) {
      List<Found> docs = byReference.getOrDefault(m.messageId(), List.of());
      String sender = m.from().toLowerCase(Locale.ROOT);
      if (docs.stream()
          .anyMatch(d -> d.kind() == DocumentKind.NON_ACCEPTANCE && d.mailbox().equals(sender))) {
        refused.add(
            m.messageId()); // not accepted, per the rules: the sender was told; nothing else is due
        continue;
      }
      List<Finding> mine = new ArrayList<>();
      expect(mine, m, "acceptance receipt", "", count(docs, DocumentKind.ACCEPTANCE, sender, null));
      if (docs.stream()
          .anyMatch(d -> d.kind() == DocumentKind.NON_DELIVERY && d.mailbox().equals(sender))) {
        // refused for good by the recipients' provider, per the rules: accepted, then the sender
        // told it was not delivered
        undeliverable.add(m.messageId());
        for (Finding f : mine) (f.lost() ? lost : duplicated).add(m.messageId());
        findings.addAll(mine);
        continue;
      }
      Set<String> domains = new LinkedHashSet<>();
      for (String rcpt : m.to()) {
        String r = rcpt.toLowerCase(Locale.ROOT);
        domains.add(r.substring(r.indexOf('@') + 1));
        expect(mine, m, "transport envelope", r, count(docs, DocumentKind.TRANSPORT, r, null));
        expect(mine, m, "delivery receipt", r, count(docs, DocumentKind.DELIVERY, sender, r));
        if (docs.stream().anyMatch(d -> d.kind() == DocumentKind.ANOMALY && d.mailbox().equals(r)))
          anomalies.add(m.messageId() + " to " + r);
      }
      String senderProvider =
          PecProvider.PROVIDER_MAILBOX + "@" + sender.substring(sender.indexOf('@') + 1);
      for (String domain : domains) {
        expect(
            mine,
            m,
            "taking-charge receipt",
            domain,
            (int)
                docs.stream()
                    .filter(
                        d ->
                            d.kind() == DocumentKind.TAKING_CHARGE
                                && d.mailbox().equals(senderProvider)
                                && domain.equals(d.deliveredTo()))
                    .count());
      }
      for (Finding f : mine) (f.lost() ? lost : duplicated).add(m.messageId());
      findings.addAll(mine);
    }
    List<KindCount> byKind = new ArrayList<>();
    for (DocumentKind kind : DocumentKind.values()) {
      List<Found> of = found.stream().filter(f -> f.kind() == kind).toList();
      if (!of.isEmpty())
        byKind.add(new KindCount(kind, of.size(), of.stream().mapToLong(Found::bytes).sum()));
    }
    return new Result(
        sent.size(),
        read,
        List.copyOf(lost),
        List.copyOf(duplicated),
        findings,
        refused,
        undeliverable,
        anomalies,
        byKind);
  }

  private static void expect(
      List<Finding> findings, SentMessage m, String document, String forWhom, int found) {
    if (found != 1) findings.add(new Finding(m.messageId(), document, forWhom, found));
  }

  private static int count(
      List<Found> docs, DocumentKind kind, String mailbox, String deliveredTo) {
    return (int)
        docs.stream()
            .filter(
                d ->
                    d.kind() == kind
                        && d.mailbox().equals(mailbox)
                        && (deliveredTo == null || deliveredTo.equals(d.deliveredTo())))
            .count();
  }

  /**
   * The document in a mailbox file, or null for mail that is none. Only the header block is read,
   * except for delivery receipts, whose recipient is in daticert.xml, and taking-charge receipts,
   * whose provider is their From.
   */
  private static Found read(String mailbox, Path file) throws IOException {
    Map<String, String> h = MailHeaders.read(file);
    var kind = DocumentKind.of(h.get("x-ricevuta"), h.get("x-trasporto"));
    if (kind.isEmpty()) return null;
    String reference = h.get("x-riferimento-message-id");
    String deliveredTo = null;
    if (kind.get() == DocumentKind.DELIVERY) {
      try {
        deliveredTo = PecProvider.signedContent(Files.readAllBytes(file)).daticert().consegna();
        deliveredTo = deliveredTo == null ? null : deliveredTo.toLowerCase(Locale.ROOT);
      } catch (Exception e) {
        deliveredTo = "(unreadable daticert.xml)";
      }
    } else if (kind.get() == DocumentKind.TAKING_CHARGE) {
      String from = h.getOrDefault("from", "");
      int at = from.lastIndexOf('@');
      deliveredTo =
          at < 0 ? "" : from.substring(at + 1).replaceAll("[>\\s].*$", "").toLowerCase(Locale.ROOT);
    }
    return new Found(
        mailbox,
        kind.get(),
        reference == null ? null : reference.strip(),
        deliveredTo,
        Files.size(file));
  }
}
