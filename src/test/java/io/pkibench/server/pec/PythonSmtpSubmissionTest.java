package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.testing.TestKeys;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A submission client we did not write: Python's smtplib (standard library only) against a provider
 * as 'serve pec' runs it, on loopback, trusting the test PKI's root from a PEM file. EHLO,
 * STARTTLS, EHLO, AUTH PLAIN as user1, one message accepted (250) and delivered to user2's Maildir;
 * then what the provider must refuse: MAIL FROM another of its users in the same session (553), and
 * AUTH PLAIN with a wrong password on a second connection (535).
 */
class PythonSmtpSubmissionTest {
  @TempDir Path dir;

  /** argv: port, CA file, user, recipient, marker; stdin: the password, one line. */
  private static final String CLIENT =
      String.join(
          "\n",
          "import smtplib, ssl, sys",
          "port, cafile, user, to, marker = sys.argv[1:6]",
          "password = sys.stdin.readline().rstrip('\\n')",
          "ctx = ssl.create_default_context(cafile=cafile)",
          "s = smtplib.SMTP('127.0.0.1', int(port), local_hostname='python-smtplib', timeout=60)",
          "code, _ = s.ehlo()",
          "print('ehlo', code, s.has_extn('starttls'), flush=True)",
          "code, _ = s.starttls(context=ctx)",
          "print('starttls', code, s.sock.version(), flush=True)",
          "code, _ = s.ehlo()",
          "print('ehlo-tls', code, 'PLAIN' in s.esmtp_features.get('auth', '').split(), flush=True)",
          "s.user, s.password = user, password",
          "code, _ = s.auth('PLAIN', s.auth_plain)",
          "print('auth', code, flush=True)",
          "msg = ('From: %s\\r\\nTo: %s\\r\\nMessage-ID: <%s@python.test>\\r\\n'",
          "       'Subject: %s\\r\\n\\r\\nsent by smtplib\\r\\n') % (user, to, marker, marker)",
          "print('mail', s.mail(user)[0], flush=True)",
          "print('rcpt', s.rcpt(to)[0], flush=True)",
          "print('data', s.data(msg)[0], flush=True)",
          "print('mail-as-other', s.mail(to)[0], flush=True)",
          "s.rset()",
          "s.quit()",
          "t = smtplib.SMTP('127.0.0.1', int(port), local_hostname='python-smtplib', timeout=60)",
          "t.starttls(context=ctx)",
          "t.ehlo()",
          "t.user, t.password = user, password + 'x'",
          "try:",
          "    t.auth('PLAIN', t.auth_plain)",
          "    print('auth-wrong-password accepted', flush=True)",
          "except smtplib.SMTPAuthenticationError as e:",
          "    print('auth-wrong-password', e.smtp_code, flush=True)",
          "t.quit()");

  @Test
  @Timeout(180)
  void
      smtplib_startTlsAuthPlainAndAMessage_acceptedAndDelivered_otherSenderAndWrongPasswordRefused()
          throws Exception {
    TestKeys keys = TestKeys.in(dir.resolve("pki"));
    var signing = keys.keys.key("signer-rsa2048-1");
    var provider =
        new PecProvider(
            "pec1.test",
            "pkibench provider pec1.test",
            signing,
            new ProviderIndex(Map.of("pec1.test", signing.certificate())),
            InstantSource.system(),
            ZoneId.of("Europe/Rome"));
    var config =
        PecServer.Config.builder("pec1.test", dir.resolve("spool"), dir.resolve("mail"))
            .bind("127.0.0.1")
            .port(0)
            .workers(1)
            .users(PecServer.TEST_USERS)
            .relayDeadline(Duration.ofDays(1))
            .limits(
                SmtpLimits.DEFAULTS
                    .withMaxMessageBytes(1 << 20)
                    .withMaxRecipients(10)
                    .withMaxConnections(20)
                    .withIdleTimeout(Duration.ofSeconds(30)))
            .build();
    List<String> log = new ArrayList<>();
    PecServer server =
        new PecServer(
            config, provider, PecServer.Logins.forTestPki(keys.pki, signing, log::add), log::add);
    server.start();
    try {
      String url = server.baseUrl();
      int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
      Path caFile = dir.resolve("root-ca.pem");
      Files.writeString(
          caFile,
          "-----BEGIN CERTIFICATE-----\n"
              + Base64.getMimeEncoder(64, new byte[] {'\n'})
                  .encodeToString(keys.pki.certificate("root-ca").getEncoded())
              + "\n-----END CERTIFICATE-----\n");
      String user = "user1@pec1.test";
      String to = "user2@pec1.test";
      String marker = "smtplib-" + System.nanoTime();

      Process python =
          new ProcessBuilder(
                  "python3",
                  "-c",
                  CLIENT,
                  Integer.toString(port),
                  caFile.toString(),
                  user,
                  to,
                  marker)
              .redirectErrorStream(true)
              .start();
      // the password on stdin, never on the command line
      try (Writer stdin =
          new OutputStreamWriter(python.getOutputStream(), StandardCharsets.UTF_8)) {
        stdin.write(PecLogin.testPassword(keys.pki, user).chars());
        stdin.write('\n');
      }
      boolean ended = python.waitFor(150, TimeUnit.SECONDS);
      if (!ended) python.destroyForcibly();
      String out = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(ended, "the smtplib client ended in time: " + out);
      assertEquals(0, python.exitValue(), "python3 (with smtplib and ssl) ran: " + out);
      assertEquals(
          List.of(
              "ehlo 250 True",
              "starttls 220 TLSv1.3",
              "ehlo-tls 250 True",
              "auth 235",
              "mail 250",
              "rcpt 250",
              "data 250",
              "mail-as-other 553",
              "auth-wrong-password 535"),
          out.lines().toList(),
          "smtplib's view of the session; the provider's log: " + log);

      List<Path> delivered =
          PecAttacksTest.awaitFiles(dir.resolve("mail").resolve(to).resolve("new"), 1);
      assertEquals(1, delivered.size(), "one message in " + to + "'s Maildir: " + delivered);
      String mail = Files.readString(delivered.get(0), StandardCharsets.ISO_8859_1);
      assertTrue(mail.contains(marker), "the delivered message is the one smtplib sent: " + mail);
    } finally {
      server.close();
    }
  }
}
