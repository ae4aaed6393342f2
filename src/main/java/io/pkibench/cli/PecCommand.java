package io.pkibench.cli;

import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecMessages;
import io.pkibench.formats.pec.PecSender;
import io.pkibench.formats.pec.ReliabilityCheck;
import io.pkibench.formats.pec.SentMessage;
import io.pkibench.formats.pec.TestProviders;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import io.pkibench.text.ConsoleTable;
import io.pkibench.workload.pec.SizeRange;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "pec",
    mixinStandardHelpOptions = true,
    description =
        "Certified e-mail (PEC): mail through 'pkibench serve pec' providers as users would, and check that nothing was lost.",
    subcommands = {PecCommand.Send.class, PecCommand.Check.class, PecCommand.Index.class},
    footer = {
      "",
      "Examples:",
      "  pkibench pec send --from user1@pec1.test --to user1@pec2.test --via 127.0.0.1:2525 --count 100 --size 60k",
      "  pkibench pec check --mailboxes pec-mailboxes/pec1.test,pec-mailboxes/pec2.test --sent sent.jsonl",
      "  pkibench pec index --out providers.pem"
    })
final class PecCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "name a subcommand: pec send, pec check or pec index (pkibench pec --help)");
  }

  @Command(
      name = "send",
      mixinStandardHelpOptions = true,
      header = "Submits PEC messages over SMTP as the original's mailer did.",
      description = {
        "Submit messages like the original's mailer: a short text and an attachment of --size bytes in all, each with a Message-ID",
        "of its own. Every message the provider acknowledged (250) is appended to --sent, what 'pec check' holds the mailboxes against."
      },
      footer = {
        "",
        "Example:",
        "  pkibench pec send --from user1@pec1.test --to user1@pec2.test --via 127.0.0.1:2525 --count 100 --size 60k"
      })
  static final class Send implements Callable<Integer> {
    @ParentCommand PecCommand pec;
    @Spec CommandSpec spec;

    @Option(
        names = "--to",
        required = true,
        split = ",",
        paramLabel = "ADDRESS,…",
        description = "recipients")
    List<String> to;

    @Option(
        names = "--from",
        defaultValue = "user1@pec1.test",
        paramLabel = "ADDRESS",
        description = "the sender, a user of the provider at --via (default: ${DEFAULT-VALUE})")
    String from;

    @Option(
        names = "--via",
        defaultValue = "127.0.0.1:2525",
        paramLabel = "HOST:PORT",
        description = "the sender's provider (default: ${DEFAULT-VALUE})")
    String via;

    @Option(
        names = "--count",
        defaultValue = "1",
        paramLabel = "N",
        description = "how many messages (default: ${DEFAULT-VALUE})")
    int count;

    @Option(
        names = "--size",
        defaultValue = "60k",
        paramLabel = "SIZE",
        description =
            "bytes per message, e.g. 56k; a range 56k..80k draws each (default: ${DEFAULT-VALUE})")
    String size;

    @Option(
        names = "--concurrency",
        defaultValue = "1",
        paramLabel = "N",
        description = "connections submitting at once (default: ${DEFAULT-VALUE})")
    int concurrency;

    @Option(
        names = "--sent",
        defaultValue = "sent.jsonl",
        paramLabel = "FILE",
        description = "appended with each acknowledged message (default: ${DEFAULT-VALUE})")
    Path sent;

    @Option(
        names = "--password-file",
        paramLabel = "FILE",
        description =
            "the sender's SMTP password, first line (default: $PKIBENCH_PEC_PASSWORD, else the test user's from the test PKI)")
    Path passwordFile;

    @Option(
        names = "--pki",
        paramLabel = "DIR",
        description =
            "test PKI directory: the provider's certificate is checked against its root (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path pki;

    @Override
    public Integer call() throws Exception {
      CliContext ctx = pec.parent.context;
      List<String> problems = new ArrayList<>();
      if (count < 1 || count > 10_000_000)
        problems.add("--count " + count + ": give 1 to 10000000");
      if (concurrency < 1 || concurrency > 256)
        problems.add("--concurrency " + concurrency + ": give 1 to 256");
      SizeRange sizes = sizes(size, problems);
      if (!via.matches(".+:[0-9]{1,5}"))
        problems.add("--via " + via + ": write HOST:PORT, e.g. 127.0.0.1:2525");
      if (!from.contains("@"))
        problems.add("--from " + from + ": write a mail address, e.g. user1@pec1.test");
      for (String t : to)
        if (!t.contains("@"))
          problems.add("--to " + t + ": write a mail address, e.g. user1@pec2.test");
      if (!problems.isEmpty())
        throw new ParameterException(spec.commandLine(), String.join("\n", problems));
      int colon = via.lastIndexOf(':');
      PecLogin login = login(ctx);
      PecSender sender =
          new PecSender(
              via.substring(0, colon),
              Integer.parseInt(via.substring(colon + 1)),
              ctx.clock(),
              address -> login);
      String domain = from.substring(from.indexOf('@') + 1);
      String run = Long.toString(ctx.clock().millis(), 36);
      AtomicInteger next = new AtomicInteger();
      AtomicInteger acknowledged = new AtomicInteger();
      List<String> failures = Collections.synchronizedList(new ArrayList<>());
      SplittableRandom random = new SplittableRandom(ctx.clock().millis());
      Path sentFile = ctx.resolve(sent);
      try (SentMessage.Log log = new SentMessage.Log(sentFile)) {
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < concurrency; w++) {
          long seed = random.nextLong();
          threads.add(
              Thread.ofPlatform()
                  .name("pec-send-" + w)
                  .start(
                      () -> {
                        SplittableRandom r = new SplittableRandom(seed);
                        int n;
                        while ((n = next.incrementAndGet()) <= count) {
                          String messageId = "<pkibench." + run + "." + n + "@" + domain + ">";
                          int bytes = sizes.draw(r);
                          byte[] message =
                              PecMessages.message(
                                  from,
                                  String.join(", ", to),
                                  messageId,
                                  "pkibench " + run + " #" + n,
                                  bytes,
                                  r.nextLong());
                          PecSender.Outcome o = sender.send(from, to, messageId, message);
                          if (o.acknowledged()) {
                            try {
                              log.add(o.sent());
                              acknowledged.incrementAndGet();
                            } catch (IOException e) {
                              failures.add(
                                  messageId
                                      + ": acknowledged, but "
                                      + sentFile
                                      + " cannot be written: "
                                      + e.getMessage());
                            }
                          } else {
                            failures.add(messageId + ": " + o.problem());
                          }
                        }
                      }));
        }
        for (Thread t : threads) t.join();
      }
      ctx.out()
          .println(
              acknowledged.get()
                  + " of "
                  + count
                  + " messages acknowledged by "
                  + via
                  + "; listed in "
                  + sentFile);
      for (String f : failures.subList(0, Math.min(20, failures.size())))
        ctx.err().println("not sent: " + f);
      if (failures.size() > 20)
        ctx.err().println("… and " + (failures.size() - 20) + " more not sent");
      return failures.isEmpty() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    /**
     * The sender logs in as itself (providers take submissions only after STARTTLS and AUTH): its
     * password from --password-file, $PKIBENCH_PEC_PASSWORD or the test PKI, never from a flag's
     * value.
     */
    private PecLogin login(CliContext ctx) throws Exception {
      TestPki testPki = TestPki.openOrInit(ctx.pkiDir(pki), ctx.clock(), ctx.err()::println);
      Secret password;
      if (passwordFile != null) {
        Path file = ctx.resolve(passwordFile);
        if (!Files.isRegularFile(file) || Files.size(file) > 4096) {
          throw new ParameterException(
              spec.commandLine(),
              "--password-file "
                  + passwordFile
                  + ": not a file of at most 4 KB; put the password on its first line");
        }
        password = Secret.fromFile(file);
      } else if (ctx.env().get("PKIBENCH_PEC_PASSWORD") != null) {
        password = Secret.of(ctx.env().get("PKIBENCH_PEC_PASSWORD").toCharArray());
      } else {
        password = PecLogin.testPassword(testPki, from);
      }
      return new PecLogin(from, password, TlsContexts.trusting(testPki.certificate("root-ca")));
    }

    private static SizeRange sizes(String text, List<String> problems) {
      try {
        return SizeRange.parse(text);
      } catch (IllegalArgumentException e) {
        problems.add("--size " + e.getMessage());
        return null;
      }
    }
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      header = "Checks that every sent PEC message got exactly one of each receipt it is owed.",
      description = {
        "The reliability check: every message in --sent has exactly one acceptance receipt, its envelope in each recipient's",
        "mailbox, one taking-charge receipt per recipient provider and one delivery receipt per recipient. Lists losses and duplicates",
        "by Message-ID and ends with 'reliability: N messages, L lost, D duplicated'. Exit 0 when nothing is lost or duplicated, 1 otherwise."
      },
      footer = {
        "",
        "Example:",
        "  pkibench pec check --mailboxes pec-mailboxes/pec1.test,pec-mailboxes/pec2.test --sent sent.jsonl --wait 30s"
      })
  static final class Check implements Callable<Integer> {
    @ParentCommand PecCommand pec;
    @Spec CommandSpec spec;

    @Option(
        names = "--mailboxes",
        required = true,
        split = ",",
        paramLabel = "DIR,…",
        description = "the providers' mailbox directories")
    List<Path> mailboxes;

    @Option(
        names = "--sent",
        defaultValue = "sent.jsonl",
        paramLabel = "FILE",
        description = "what 'pec send' wrote (default: ${DEFAULT-VALUE})")
    Path sent;

    @Option(
        names = "--wait",
        defaultValue = "0s",
        paramLabel = "DURATION",
        description =
            "check again until this long has passed while documents are missing (default: ${DEFAULT-VALUE})")
    String waitFor;

    @Override
    public Integer call() throws Exception {
      CliContext ctx = pec.parent.context;
      FlagProblems problems = new FlagProblems();
      Duration wait = problems.duration("--wait " + waitFor, waitFor, Duration.ZERO);
      List<Path> roots = mailboxes.stream().map(ctx::resolve).toList();
      for (int i = 0; i < roots.size(); i++)
        if (!Files.isDirectory(roots.get(i)))
          problems.add("--mailboxes " + mailboxes.get(i) + ": no such directory");
      Path sentFile = ctx.resolve(sent);
      List<SentMessage> messages = List.of();
      try {
        messages = SentMessage.read(sentFile);
      } catch (IOException e) {
        problems.add(
            "--sent "
                + sent
                + ": "
                + (Files.exists(sentFile)
                    ? e.getMessage()
                    : "no such file; 'pkibench pec send' writes it"));
      }
      problems.throwIfAny(spec.commandLine());
      ReliabilityCheck.Result result = ReliabilityCheck.await(roots, messages, wait);
      print(ctx.out(), result);
      return result.passed() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    static void print(PrintWriter out, ReliabilityCheck.Result r) {
      out.println(
          r.documentsRead()
              + " mailbox files read for "
              + r.messages()
              + " sent messages; "
              + r.byKindLine());
      if (!r.findings().isEmpty()) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"message", "document", "for", "found"});
        for (var f : r.findings().subList(0, Math.min(200, r.findings().size()))) {
          rows.add(
              new String[] {f.messageId(), f.document(), f.forWhom(), Integer.toString(f.found())});
        }
        out.print(new ConsoleTable("", " ", Set.of(0, 1, 2), ConsoleTable.COLUMNS).render(rows));
        if (r.findings().size() > 200)
          out.println("… and " + (r.findings().size() - 200) + " more findings");
      }
      if (!r.refused().isEmpty())
        out.println(
            r.refused().size()
                + " not accepted by their provider (non-accettazione, per the rules): "
                + r.refused());
      if (!r.undeliverable().isEmpty()) {
        out.println(
            r.undeliverable().size()
                + " refused by the recipients' provider, their senders told (errore-consegna, per the rules): "
                + r.undeliverable());
      }
      if (!r.anomalies().isEmpty())
        out.println(r.anomalies().size() + " delivered as anomalies: " + r.anomalies());
      out.println(r.summary());
    }
  }

  @Command(
      name = "index",
      mixinStandardHelpOptions = true,
      description =
          "Writes the provider index the providers use by default (pec1.test and pec2.test of the test PKI), to edit or to give others.",
      footer = {
        "",
        "Example:",
        "  pkibench pec index --out providers.pem && openssl crl2pkcs7 -nocrl -certfile providers.pem | openssl pkcs7 -print_certs"
      })
  static final class Index implements Callable<Integer> {
    @ParentCommand PecCommand pec;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "FILE",
        description = "where to write it")
    Path out;

    @Option(
        names = "--pki",
        paramLabel = "DIR",
        description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path pki;

    @Override
    public Integer call() throws Exception {
      CliContext ctx = pec.parent.context;
      TestPki testPki = TestPki.openOrInit(ctx.pkiDir(pki), ctx.clock(), ctx.err()::println);
      Path file = ctx.resolve(out);
      TestProviders.index(testPki).write(file);
      ctx.out()
          .println(
              "provider index of "
                  + TestProviders.SENDER_DOMAIN
                  + " and "
                  + TestProviders.RECIPIENT_DOMAIN
                  + " written to "
                  + file);
      return ExitCodes.OK;
    }
  }
}
