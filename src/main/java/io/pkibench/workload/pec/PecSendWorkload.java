package io.pkibench.workload.pec;

import io.pkibench.formats.pec.DocumentKind;
import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecMessages;
import io.pkibench.formats.pec.PecSender;
import io.pkibench.formats.pec.ReceiptWatch;
import io.pkibench.formats.pec.SentMessage;
import io.pkibench.plan.Durations;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code pec-send}: the complete flow through running providers, as the original's mailer drove it.
 * One transaction is one user's message submitted over SMTP to its provider and ended by the
 * delivery receipt the recipient's provider signs, landing in the sender's Maildir: acceptance,
 * envelope, relay, verification, taking-charge and delivery all inside the measured latency.
 * Messages go from {@code user1@} each provider to {@code user1@} the next (to {@code user2@} of
 * the same provider when there is one), in the proportions of {@code mix}. Every acknowledged
 * message is appended to {@code sent}, what the reliability check holds the mailboxes against.
 */
public final class PecSendWorkload implements WorkloadFactory {
  /** A provider as the workload reaches it: its domain and its SMTP address. */
  record Route(String domain, String host, int port) {
    static List<Route> parse(String text) {
      List<Route> routes = new ArrayList<>();
      for (String part : text.split(",")) {
        String p = part.strip();
        int eq = p.indexOf('=');
        int colon = p.lastIndexOf(':');
        if (eq <= 0 || colon < eq + 2 || !p.substring(colon + 1).matches("[0-9]{1,5}")) {
          throw new IllegalArgumentException(
              "'" + p + "' is not DOMAIN=HOST:PORT, e.g. pec1.test=127.0.0.1:2525");
        }
        routes.add(
            new Route(
                p.substring(0, eq).toLowerCase(Locale.ROOT),
                p.substring(eq + 1, colon),
                Integer.parseInt(p.substring(colon + 1))));
      }
      if (routes.stream().map(Route::domain).distinct().count() != routes.size())
        throw new IllegalArgumentException("a domain is named twice");
      return routes;
    }
  }

  @Override
  public String name() {
    return "pec-send";
  }

  @Override
  public String description() {
    return "PEC end to end through running providers (serve pec): a message submitted over SMTP → its delivery receipt in the sender's mailbox";
  }

  @Override
  public boolean usesKeys() {
    return false; // the providers sign; the users' mail client holds no key
  }

  @Override
  public List<ParamSpec> params() {
    return List.of(
        ParamSpec.free(
            ParamSpec.TARGET,
            "",
            "the providers as DOMAIN=HOST:PORT,…, e.g. pec1.test=127.0.0.1:2525,pec2.test=127.0.0.1:2526"),
        ParamSpec.free(
            "mailboxes",
            "pec-mailboxes",
            "the directory holding each provider's --mailboxes as DIR/DOMAIN, where the receipts land"),
        ParamSpec.free(
            "mix",
            "",
            "how many messages each provider's user sends in turn, in --target's order, e.g. 2:3 (default: equal)"),
        ParamSpec.free(
            "size",
            "56k..80k",
            "bytes per message, one size (60k) or a range drawn uniformly (56k..80k)"),
        ParamSpec.free(
            "timeout",
            "60s",
            "how long a message may take to its delivery receipt before it counts as failed"),
        ParamSpec.free(
            "pause",
            "",
            "a pause drawn uniformly from this range before each message, as the original's reliability test paced its"
                + " mailer, e.g. 1s..15s; it is part of each operation's time, so latency includes it (default: none)"),
        ParamSpec.free(
            "sent",
            "",
            "where each acknowledged message is appended for 'pkibench pec check' (default: MAILBOXES/sent.jsonl)"));
  }

  @Override
  public List<String> problems(Params params, String keys) {
    List<String> problems = new ArrayList<>();
    List<Route> routes = List.of();
    try {
      routes = Route.parse(params.get(ParamSpec.TARGET));
    } catch (IllegalArgumentException e) {
      problems.add("--target " + params.get(ParamSpec.TARGET) + ": " + e.getMessage());
    }
    try {
      int[] mix = mix(params.get("mix"), routes.size());
      if (mix.length != routes.size() && !routes.isEmpty()) {
        problems.add(
            "-p mix="
                + params.get("mix")
                + ": give one count per provider in --target ("
                + routes.size()
                + "), e.g. 2:3");
      }
    } catch (IllegalArgumentException e) {
      problems.add("-p mix=" + params.get("mix") + ": " + e.getMessage());
    }
    try {
      SizeRange.parse(params.get("size"));
    } catch (IllegalArgumentException e) {
      problems.add("-p size=" + e.getMessage());
    }
    try {
      Duration t = Durations.parse(params.get("timeout"));
      if (t.toMillis() < 100)
        problems.add("-p timeout=" + params.get("timeout") + ": give at least 100ms, e.g. 60s");
    } catch (IllegalArgumentException e) {
      problems.add("-p timeout=" + params.get("timeout") + ": " + e.getMessage());
    }
    if (!params.get("pause").isBlank()) {
      try {
        PauseRange.parse(params.get("pause"));
      } catch (IllegalArgumentException e) {
        problems.add("-p pause=" + params.get("pause") + ": " + e.getMessage());
      }
    }
    return problems;
  }

  private static int[] mix(String text, int providers) {
    if (text.isBlank()) {
      int[] equal = new int[providers];
      Arrays.fill(equal, 1);
      return equal;
    }
    String[] parts = text.split(":");
    int[] mix = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        mix[i] = Integer.parseInt(parts[i].strip());
      } catch (NumberFormatException e) {
        mix[i] = -1;
      }
      if (mix[i] < 1 || mix[i] > 1000)
        throw new IllegalArgumentException("each count is a whole number from 1 to 1000, e.g. 2:3");
    }
    return mix;
  }

  @Override
  public Workload create(WorkloadContext context, Params params) throws Exception {
    List<Route> routes = Route.parse(params.get(ParamSpec.TARGET));
    int[] mix = mix(params.get("mix"), routes.size());
    // message n goes from the provider whose turn it is in a cycle of sum(mix) messages
    int[] turn = new int[Arrays.stream(mix).sum()];
    for (int i = 0, k = 0; i < mix.length; i++) for (int j = 0; j < mix[i]; j++) turn[k++] = i;
    SizeRange sizes = SizeRange.parse(params.get("size"));
    long timeoutNanos = Durations.parse(params.get("timeout")).toNanos();
    PauseRange pause = params.get("pause").isBlank() ? null : PauseRange.parse(params.get("pause"));
    Path mailboxes = Path.of(params.get("mailboxes"));
    Path sentFile =
        params.get("sent").isBlank()
            ? mailboxes.resolve("sent.jsonl")
            : Path.of(params.get("sent"));
    List<Path> watched = new ArrayList<>();
    List<PecSender> senders = new ArrayList<>();
    for (Route r : routes) {
      watched.add(mailboxes.resolve(r.domain()).resolve(user(r.domain(), 1)).resolve("new"));
      // each provider's user logs in as itself, its password from the test PKI (never a parameter)
      PecLogin login = PecLogin.testUser(context.pki().get(), user(r.domain(), 1));
      senders.add(new PecSender(r.host(), r.port(), context.clock(), from -> login));
    }
    Files.createDirectories(sentFile.toAbsolutePath().getParent());
    // Message-IDs unique to this run: a provider drops a Message-ID it has seen as a resubmission
    String run =
        Long.toString(context.clock().millis(), 36)
            + "-"
            + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
    ReceiptWatch receipts = new ReceiptWatch(watched);
    SentMessage.Log log;
    try {
      log = new SentMessage.Log(sentFile);
    } catch (IOException e) {
      receipts.close();
      throw new IOException("-p sent: cannot append to " + sentFile + ": " + e.getMessage(), e);
    }
    AtomicLong next = new AtomicLong();
    return new Workload() {
      @Override
      public Operation newOperation(int worker) {
        return () -> {
          long n = next.incrementAndGet();
          int i = turn[(int) ((n - 1) % turn.length)];
          Route from = routes.get(i);
          String sender = user(from.domain(), 1);
          String recipient =
              routes.size() == 1
                  ? user(from.domain(), 2)
                  : user(routes.get((i + 1) % routes.size()).domain(), 1);
          String messageId = "<pkibench." + run + "." + n + "@" + from.domain() + ">";
          SplittableRandom random = new SplittableRandom(n);
          if (pause != null) Thread.sleep(Duration.ofNanos(pause.drawNanos(random)));
          byte[] message =
              PecMessages.message(
                  sender,
                  recipient,
                  messageId,
                  "pkibench " + run + " #" + n,
                  sizes.draw(random),
                  random.nextLong());
          var answer = receipts.expect(messageId);
          PecSender.Outcome outcome =
              senders.get(i).send(sender, List.of(recipient), messageId, message);
          if (!outcome.acknowledged()) {
            receipts.forget(messageId);
            throw new IOException(
                from.domain() + " did not take the message: " + outcome.problem());
          }
          log.add(outcome.sent());
          DocumentKind kind;
          try {
            kind = answer.get(timeoutNanos, TimeUnit.NANOSECONDS);
          } catch (TimeoutException e) {
            receipts.forget(messageId);
            throw new TimeoutException(
                "no delivery receipt within " + Durations.format(Duration.ofNanos(timeoutNanos)));
          } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
          }
          if (kind != DocumentKind.DELIVERY)
            throw new IllegalStateException(
                from.domain() + " answered with " + kind.value + ", not a delivery receipt");
        };
      }

      @Override
      public void close() throws Exception {
        try (receipts;
            log) {
          // both closed, the watch first
        }
      }
    };
  }

  static String user(String domain, int n) {
    return "user" + n + "@" + domain;
  }
}
