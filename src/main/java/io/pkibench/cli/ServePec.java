package io.pkibench.cli;

import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.TestProviders;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.InputFiles;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.pec.PecServer;
import io.pkibench.server.pec.SmtpLimits;
import io.pkibench.workload.api.Params;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "pec",
    mixinStandardHelpOptions = true,
    header = "A certified e-mail (PEC) provider over SMTP, in the roles of RFC 6109.",
    description = {
      "A certified e-mail (PEC) provider over SMTP in the roles of RFC 6109: a user of --domain submits a message and gets",
      "a signed acceptance receipt while the signed transport envelope goes to the recipient's provider (--peer); mail",
      "arriving for --domain is verified against the provider index, taken in charge and delivered with signed receipts.",
      "A message is acknowledged (250) only once it is fsynced in --spool; a provider killed and restarted finishes every",
      "acknowledged message exactly once. Mailboxes are Maildirs under --mailboxes, one per address."
    },
    footer = {
      "",
      "Example (two providers mailing each other):",
      "  pkibench serve pec --domain pec1.test --port 2525 --peer pec2.test=127.0.0.1:2526 --spool s1 --mailboxes m1 &",
      "  pkibench serve pec --domain pec2.test --port 2526 --peer pec1.test=127.0.0.1:2525 --spool s2 --mailboxes m2 &",
      "  pkibench pec send --from user1@pec1.test --to user1@pec2.test --via 127.0.0.1:2525 --count 100 --size 60k",
      "  pkibench pec check --mailboxes m1,m2 --sent sent.jsonl",
      "",
      "Without --index, the providers pec1.test and pec2.test of the test PKI (keys signer-rsa2048-1 and -2) know each other."
    })
final class ServePec extends ServedService {
  @Option(
      names = "--port",
      defaultValue = "2525",
      description = "SMTP port, 0 for any free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--domain",
      required = true,
      paramLabel = "DOMAIN",
      description = "the mail domain this provider serves, e.g. pec1.test")
  String domain;

  @Option(
      names = "--peer",
      paramLabel = "DOMAIN=HOST:PORT",
      description = "where another provider takes mail (repeat for more)")
  Map<String, String> peers = new LinkedHashMap<>();

  @Option(
      names = "--workers",
      defaultValue = "4",
      paramLabel = "N",
      description = "threads doing the provider's work (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(
      names = "--spool",
      paramLabel = "DIR",
      description = "the durable spool; put it on the disk to size (default: ./pec-spool/DOMAIN)")
  Path spool;

  @Option(
      names = "--mailboxes",
      paramLabel = "DIR",
      description = "the users' Maildirs (default: ./pec-mailboxes/DOMAIN)")
  Path mailboxes;

  @Option(
      names = "--index",
      paramLabel = "FILE",
      description =
          "the provider index: 'provider: DOMAIN' lines, each before its PEM certificate (default: the test PKI's pec1.test and pec2.test)")
  Path index;

  @Option(
      names = "--keys",
      defaultValue = "software",
      paramLabel = "SOURCE",
      description =
          "where the provider's key lives: software, pkcs11:CONFIG or remote:… (default: ${DEFAULT-VALUE})")
  String keys;

  @Option(
      names = "--key",
      paramLabel = "ALIAS",
      description =
          "the provider's signing key (default: signer-rsa2048-1 for pec1.test, signer-rsa2048-2 for pec2.test)")
  String key;

  @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
  Path pinFile;

  @Option(
      names = "--name",
      paramLabel = "TEXT",
      description = "the provider's name in daticert.xml (gestore-emittente)")
  String name;

  @Option(
      names = "--max-message",
      defaultValue = "32m",
      paramLabel = "SIZE",
      description = "largest message taken, e.g. 32m (default: ${DEFAULT-VALUE})")
  String maxMessage;

  @Option(
      names = "--max-recipients",
      defaultValue = "100",
      paramLabel = "N",
      description = "recipients per message (default: ${DEFAULT-VALUE})")
  int maxRecipients;

  @Option(
      names = "--max-connections",
      defaultValue = "200",
      paramLabel = "N",
      description = "SMTP connections at once (default: ${DEFAULT-VALUE})")
  int maxConnections;

  @Option(
      names = "--idle-timeout",
      defaultValue = "60s",
      paramLabel = "DURATION",
      description = "an SMTP client silent this long is disconnected (default: ${DEFAULT-VALUE})")
  String idleTimeout;

  @Option(
      names = "--command-deadline",
      defaultValue = "60s",
      paramLabel = "DURATION",
      description =
          "a client must send its next command (or line of a message) this soon after our reply, however it trickles it (default: ${DEFAULT-VALUE})")
  String commandDeadline;

  @Option(
      names = "--transaction-deadline",
      defaultValue = "10m",
      paramLabel = "DURATION",
      description =
          "a connection must get a message through this soon after it opened or its last message (default: ${DEFAULT-VALUE})")
  String transactionDeadline;

  @Option(
      names = "--max-connections-per-address",
      defaultValue = "100",
      paramLabel = "N",
      description = "SMTP connections at once from one IP address (default: ${DEFAULT-VALUE})")
  int maxPerAddress;

  @Option(
      names = "--relay-deadline",
      defaultValue = "24h",
      paramLabel = "DURATION",
      description =
          "mail a peer has not taken this long after it was processed (no route, peer down) is given up: its sender gets a non-delivery notice (default: ${DEFAULT-VALUE})")
  String relayDeadline;

  @Option(
      names = "--users",
      split = ",",
      paramLabel = "NAME,…",
      description =
          "the local parts of --domain that have a mailbox (default: the test users user1 … user9)")
  List<String> users;

  @Option(
      names = "--users-file",
      paramLabel = "FILE",
      description =
          "the local parts that have a mailbox, one a line (# comments), instead of --users")
  Path usersFile;

  @Option(
      names = "--zone",
      paramLabel = "ZONE",
      description =
          "the time zone the provider's documents state times in (default: Europe/Rome, Italy's)")
  ZoneId timeZone = TestProviders.ZONE;

  @Override
  ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
    FlagProblems problems = new FlagProblems();
    String d = domain.toLowerCase(Locale.ROOT);
    PecServer.Config config = config(ctx, d, problems);
    problems.addAll(config.problems());
    String alias = key != null ? key : TestProviders.keyOf(d).orElse(null);
    if (alias == null)
      problems.add(
          "--key: name the provider's signing key for "
              + d
              + " (only pec1.test and pec2.test have defaults)");
    String keyProblem = KeySources.problem(keys);
    if (keyProblem != null) problems.add(keyProblem);
    problems.throwIfAny(serve.spec.commandLine());

    TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
    ProviderIndex providers;
    try {
      providers =
          index != null ? ProviderIndex.read(ctx.resolve(index)) : TestProviders.index(testPki);
    } catch (IOException e) {
      throw new ParameterException(
          serve.spec.commandLine(), "--index " + index + ":\n" + e.getMessage());
    }
    KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
    var signing = source.key(alias);
    return PecServer.forKey(
        config,
        signing,
        providers,
        name,
        ctx.clock(),
        timeZone,
        PecServer.Logins.forTestPki(testPki, signing, ctx.err()::println),
        ctx.err()::println);
  }

  /**
   * The provider's configuration from the flags, each bad one added to {@code problems}: the one
   * place that knows the shape of {@link PecServer.Config}.
   */
  private PecServer.Config config(CliContext ctx, String lowerDomain, FlagProblems problems) {
    int maxBytes = Params.parseBytes(maxMessage);
    problems.require(maxBytes >= 0, "--max-message", maxMessage, "write a size, like 32m");
    Duration idle = problems.duration("--idle-timeout " + idleTimeout, idleTimeout, Duration.ZERO);
    Path spoolDir = ctx.resolve(spool != null ? spool : Path.of("pec-spool", lowerDomain));
    Path boxes = ctx.resolve(mailboxes != null ? mailboxes : Path.of("pec-mailboxes", lowerDomain));
    Set<String> mailUsers = mailUsers(ctx, problems);
    Duration commandTime = deadline("--command-deadline", commandDeadline, problems);
    Duration transactionTime = deadline("--transaction-deadline", transactionDeadline, problems);
    Duration relay = deadline("--relay-deadline", relayDeadline, problems);
    return PecServer.Config.builder(lowerDomain, spoolDir, boxes)
        .bind(bind)
        .port(port)
        .peers(peers)
        .workers(workers)
        .users(mailUsers)
        .relayDeadline(relay)
        .limits(
            SmtpLimits.DEFAULTS
                .withMaxMessageBytes(maxBytes)
                .withMaxRecipients(maxRecipients)
                .withMaxConnections(maxConnections)
                .withIdleTimeout(idle)
                .withCommandDeadline(commandTime)
                .withTransactionDeadline(transactionTime)
                .withMaxConnectionsPerAddress(maxPerAddress))
        .build();
  }

  /** A deadline of at least 100ms (shorter ones would cut off every client). */
  private static Duration deadline(String flag, String text, FlagProblems problems) {
    return problems.durationOfAtLeast(
        flag, text, Duration.ofMillis(100), "60s", Duration.ofSeconds(1));
  }

  /** The users with a mailbox, each a local part RCPT would take; every bad one named. */
  private Set<String> mailUsers(CliContext ctx, FlagProblems problems) {
    if (users != null && usersFile != null)
      problems.add("--users and --users-file: give one of them");
    List<String> names = new ArrayList<>();
    String flag = "--users";
    if (usersFile != null) {
      flag = "--users-file " + usersFile;
      Path file = ctx.resolve(usersFile);
      try {
        for (String line : InputFiles.lines(file, 16L << 20, "a users file")) {
          if (!line.isBlank() && !line.strip().startsWith("#")) names.add(line.strip());
        }
      } catch (IOException e) {
        problems.add(
            flag
                + ": cannot be read ("
                + e.getMessage()
                + "); list one local part a line, e.g. user1");
      }
    } else if (users != null) {
      names.addAll(users);
    } else {
      return PecServer.TEST_USERS;
    }
    Set<String> set = new LinkedHashSet<>();
    for (String n : names) {
      String problem = PecServer.localPartProblem(n);
      if (problem != null) problems.add(flag + ": '" + n + "' " + problem);
      else set.add(n.toLowerCase(Locale.ROOT));
    }
    if (set.isEmpty() && problems.isEmpty())
      problems.add(flag + ": names no user; give at least one, e.g. user1");
    return set;
  }

  @Override
  String what(ReferenceServer server) {
    return "PEC provider " + domain + " listening on " + server.baseUrl();
  }
}
