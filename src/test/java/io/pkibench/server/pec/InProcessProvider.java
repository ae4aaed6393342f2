package io.pkibench.server.pec;

import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.testing.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The provider of pec1.test in the test's JVM, its spool and mailboxes where the test says and its
 * forces made by the test's {@link Durable}; and the plain messages the durability tests send it
 * from outside (incoming mail for user1, delivered straight into its Maildir).
 */
final class InProcessProvider {
  private InProcessProvider() {}

  static PecServer start(
      TestKeys keys, Path spool, Path mail, Durable durable, Consumer<String> log)
      throws Exception {
    var key = keys.keys.key("signer-rsa2048-1");
    var index =
        new ProviderIndex(
            Map.of(
                "pec1.test",
                key.certificate(),
                "pec2.test",
                keys.keys.key("signer-rsa2048-2").certificate()));
    var provider =
        new PecProvider(
            "pec1.test",
            "pkibench provider pec1.test",
            key,
            index,
            InstantSource.system(),
            ZoneId.of("Europe/Rome"));
    var config =
        PecServer.Config.builder("pec1.test", spool, mail)
            .bind("127.0.0.1")
            .workers(2)
            .relayDeadline(Duration.ofDays(1))
            .limits(
                SmtpLimits.DEFAULTS
                    .withMaxMessageBytes(1 << 20)
                    .withMaxRecipients(10)
                    .withMaxConnections(40)
                    .withIdleTimeout(Duration.ofSeconds(30)))
            .build();
    PecServer server =
        new PecServer(
            config,
            provider,
            PecAttacksTest.serverLogins(keys),
            log,
            InstantSource.system(),
            durable);
    server.start();
    return server;
  }

  static int port(PecServer server) {
    String url = server.baseUrl();
    return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
  }

  /** The body of every message: large enough that its journal record spans several writes. */
  static final String BODY = "a line of plain mail that must survive the power cut\r\n".repeat(300);

  static String messageId(String tag, int n) {
    return "<" + tag + "." + n + "@elsewhere.test>";
  }

  static String message(String messageId) {
    return PecAttacksTest.message("someone@elsewhere.test", "user1@pec1.test", messageId) + BODY;
  }

  /**
   * Sends one message from outside to user1@pec1.test on a connection of its own; the reply to its
   * end of DATA.
   */
  static String send(int port, String messageId) throws Exception {
    try (SmtpTalk smtp = new SmtpTalk(port)) {
      List<String> rcpt = smtp.envelope("someone@elsewhere.test", "user1@pec1.test");
      if (!rcpt.getFirst().startsWith("250")) return rcpt.getFirst();
      return smtp.data(message(messageId));
    }
  }

  /** The files in user1@pec1.test's Maildir (new/ and cur/) under {@code mail}. */
  static List<Path> delivered(Path mail) throws Exception {
    List<Path> all = new ArrayList<>();
    for (String sub : List.of("new", "cur")) {
      Path d = mail.resolve("user1@pec1.test").resolve(sub);
      if (!Files.isDirectory(d)) continue;
      try (Stream<Path> s = Files.list(d)) {
        all.addAll(s.toList());
      }
    }
    return all;
  }

  /**
   * The Message-IDs whose envelope lies whole in user1's Maildir: the envelope names the message
   * and carries its body.
   */
  static List<String> wholeIn(Path mail, List<String> messageIds) throws Exception {
    List<String> texts = new ArrayList<>();
    for (Path f : delivered(mail))
      texts.add(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
    List<String> whole = new ArrayList<>();
    for (String id : messageIds) {
      for (String t : texts) {
        if (t.contains("X-Riferimento-Message-ID: " + id + "\r\n") && t.contains(BODY)) {
          whole.add(id);
          break;
        }
      }
    }
    return whole;
  }
}
