package io.pkibench.study;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checking run of {@code study ssl --server pkibench,nginx}, before its first measured step:
 * {@link TlsFactsProbe} on every server, what it saw kept for the report's findings ({@link
 * LikeForLike}). Separate from the measured steps, so they pay for no observation.
 */
final class LikeForLikeCheck implements StepHook {
  /** What the checking run saw, per server in the order checked, and what it could not see. */
  static final class Seen {
    private final Map<String, LikeForLike.Facts> facts = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();

    synchronized void add(LikeForLike.Facts seen) {
      facts.put(seen.server(), seen);
    }

    synchronized void failed(String server, Exception e) {
      problems.add(
          "the like-for-like checking run could not see "
              + server
              + " ("
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage()
              + "): its cells are not shown like for like");
    }

    /**
     * Why {@code server}'s cells are not set against {@code reference}'s: how the two differ, or
     * that the checking run saw one of them not at all; null when they are like for like.
     */
    synchronized String notComparedBecause(String reference, String server) {
      LikeForLike.Facts base = facts.get(reference), other = facts.get(server);
      if (base == null || other == null)
        return "the like-for-like checking run did not see " + (base == null ? reference : server);
      List<String> differences = LikeForLike.differences(base, other);
      return differences.isEmpty() ? null : String.join("; ", differences);
    }

    /**
     * The report's findings: each server's facts, then each server's verdict against {@code
     * reference} (null: no reference measured, the facts alone).
     */
    synchronized List<String> findings(String reference) {
      List<String> findings = new ArrayList<>();
      if (!facts.isEmpty())
        findings.add(
            "like-for-like checking run, before the measured steps (a JDK client offering every"
                + " version, suite and group it has, so each server's configuration decides; handshakes"
                + " counted by the client, a second connection offering the first one's session): "
                + String.join(
                    "; ", facts.values().stream().map(LikeForLike.Facts::describe).toList()));
      LikeForLike.Facts base = reference == null ? null : facts.get(reference);
      if (base != null)
        for (LikeForLike.Facts other : facts.values())
          if (other != base) findings.add(LikeForLike.verdict(base, other));
      findings.addAll(problems);
      return findings;
    }
  }

  private final List<String> services;
  private final Seen seen;

  LikeForLikeCheck(List<String> services, Seen seen) {
    this.services = List.copyOf(services);
    this.seen = seen;
  }

  @Override
  public String describe() {
    return "like-for-like checking run on " + String.join(", ", services);
  }

  @Override
  public void run(RunningServices running) {
    for (String service : services) {
      try {
        seen.add(TlsFactsProbe.probe(service, running.url(service)));
      } catch (Exception e) {
        seen.failed(service, e);
      }
    }
  }
}
