package io.pkibench.server;

import io.pkibench.analysis.Analysis;
import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.StudyTables;
import io.pkibench.report.TerminalTable;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultCsv;
import io.pkibench.results.RunResultJson;
import io.pkibench.server.crl.RevocationServer;
import io.pkibench.server.pec.PecServer;
import io.pkibench.server.pec.SmtpLimits;
import io.pkibench.server.signer.SignerServer;
import io.pkibench.server.tsa.TsaServer;
import io.pkibench.testing.Mutations;
import io.pkibench.testing.TestKeys;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.oiw.OIWObjectIdentifiers;
import org.bouncycastle.cert.ocsp.OCSPResp;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponse;

/**
 * A fuzz target per decoder that takes outside bytes: the signer's JSON (over HTTPS to a real
 * signer), TSA and OCSP requests (over HTTP to real services), and result files (read, analysed and
 * rendered as `pkibench report` does), and SMTP command lines to a PEC provider. Inputs are valid
 * seeds mutated (bytes or characters changed, cut, repeated, extended, nested deep, replaced by
 * noise). Every input must get an answer in its protocol's terms: no exception escapes, no
 * connection is dropped unanswered, no 500 (a fault of ours), no class name in a reply. The suite
 * runs a short run of each; {@code bench/decoder-fuzz} runs a million of each under a bounded heap
 * and prints the peak heap used.
 */
public final class DecoderFuzz {
  public static final List<String> TARGETS =
      List.of("signer-json", "tsa", "ocsp", "result", "smtp");

  /**
   * What a run saw: inputs, answers by kind, the slowest input, peak heap, and the first violation
   * (null if none).
   */
  public record Outcome(
      String target,
      long inputs,
      Map<String, Long> answers,
      long slowestNanos,
      long peakHeapBytes,
      String violation) {}

  /** A Java or library class name, or a stack frame, in a reply: our insides. */
  private static final Pattern INSIDES =
      Pattern.compile(
          "\\b(?:java|javax|sun|org|eu|com|io)\\.[a-z0-9_.]+\\.[A-Z]\\w*|\\tat |Exception:");

  private interface Target extends AutoCloseable {
    byte[] next(SplittableRandom random);

    /** The kind of answer {@code input} got; throws {@link Violation} when it broke a rule. */
    String check(byte[] input) throws Exception;

    @Override
    default void close() {}
  }

  static final class Violation extends Exception {
    Violation(String message) {
      super(message);
    }
  }

  public static Outcome run(String target, long inputs, long seed, Path work) throws Exception {
    Files.createDirectories(work);
    TestKeys fixture = TestKeys.in(work);
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Long> answers = new TreeMap<>();
    long slowest = 0;
    resetPeaks();
    try (Target t = open(target, fixture, work)) {
      for (long i = 0; i < inputs; i++) {
        byte[] input = t.next(random);
        long start = System.nanoTime();
        String answer;
        try {
          answer = t.check(input);
        } catch (Violation v) {
          return new Outcome(
              target,
              i + 1,
              answers,
              slowest,
              peakHeap(),
              "input " + i + ": " + v.getMessage() + "; input: " + shown(input));
        } catch (Throwable e) {
          return new Outcome(
              target,
              i + 1,
              answers,
              slowest,
              peakHeap(),
              "input "
                  + i
                  + " escaped as "
                  + e
                  + " at "
                  + ourFrames(e)
                  + "; input: "
                  + shown(input));
        }
        slowest = Math.max(slowest, System.nanoTime() - start);
        answers.merge(answer, 1L, Long::sum);
      }
    }
    return new Outcome(target, inputs, answers, slowest, peakHeap(), null);
  }

  private static Target open(String target, TestKeys fixture, Path work) throws Exception {
    return switch (target) {
      case "signer-json" -> new SignerJson(fixture);
      case "tsa" -> tsa(fixture);
      case "ocsp" -> ocsp(fixture);
      case "result" -> new ResultFile(work);
      case "smtp" -> new SmtpCommands(fixture, work);
      default ->
          throw new IllegalArgumentException(
              "unknown target '" + target + "'; use one of " + TARGETS);
    };
  }

  // ---- targets

  /**
   * JSON bodies to every signer endpoint over HTTPS: 200, a JSON refusal (4xx, or 503 busy) — never
   * 500, never a dropped connection.
   */
  private static final class SignerJson implements Target {
    private final SignerServer server;
    private final HttpClient http;
    private final List<String[]> seeds = new ArrayList<>(); // endpoint, body

    SignerJson(TestKeys fixture) throws Exception {
      var tls = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("tls-server");
      server =
          new SignerServer(
              new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
              CertificateLogin.of(fixture.pki, CertificateLogin.Revocation.CRL),
              TlsContexts.withIdentity(tls, null),
              "127.0.0.1",
              0,
              InstantSource.system());
      server.start();
      http =
          HttpClient.newBuilder()
              .sslContext(TlsContexts.trusting(fixture.pki.certificate("root-ca")))
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      StringBuilder chain = new StringBuilder("[");
      for (var c : fixture.keys.key("signer-rsa2048-1").chain()) {
        chain
            .append(chain.length() > 1 ? "," : "")
            .append('"')
            .append(Base64.getEncoder().encodeToString(c.getEncoded()))
            .append('"');
      }
      chain.append(']');
      String text =
          Base64.getEncoder().encodeToString("a document to sign".getBytes(StandardCharsets.UTF_8));
      String xml =
          Base64.getEncoder()
              .encodeToString("<doc><p id=\"a\">text</p></doc>".getBytes(StandardCharsets.UTF_8));
      for (String type : List.of("cades", "cades-t", "xades")) {
        seeds.add(
            new String[] {
              "/api/signatures/" + type + "/start",
              "{\"document\":\""
                  + (type.equals("xades") ? xml : text)
                  + "\",\"certificates\":"
                  + chain
                  + ",\"packaging\":\"detached\"}"
            });
      }
      seeds.add(
          new String[] {"/api/signatures/0123456789abcdef/finish", "{\"signature\":\"AAAA\"}"});
      seeds.add(new String[] {"/api/auth/start", "{}"});
      seeds.add(
          new String[] {
            "/api/auth/0123456789abcdef/finish",
            "{\"certificates\":" + chain + ",\"signature\":\"AAAA\"}"
          });
    }

    private String endpoint = "";

    @Override
    public byte[] next(SplittableRandom random) {
      String[] seed = seeds.get(random.nextInt(seeds.size()));
      endpoint = seed[0];
      return Mutations.text(seed[1], random).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String check(byte[] input) throws Exception {
      HttpResponse<byte[]> reply =
          post(http, server.baseUrl() + endpoint, "application/json", input);
      String text = new String(reply.body(), StandardCharsets.UTF_8);
      int status = reply.statusCode();
      if (status == 500 || status < 200 || status > 503 || (status > 200 && status < 400)) {
        throw new Violation(endpoint + " answered " + status + ": " + text);
      }
      var body = RunResultJson.mapper().readTree(text);
      if (body == null || !body.isObject())
        throw new Violation(endpoint + " answered " + status + " without a JSON object: " + text);
      if (status != 200 && (!body.hasNonNull("error") || !body.hasNonNull("message"))) {
        throw new Violation(
            endpoint + " refused " + status + " without error and message: " + text);
      }
      if (INSIDES.matcher(text).find())
        throw new Violation(endpoint + " answered in our insides' words: " + text);
      return status == 200 ? "200" : status + " " + body.get("error").asText();
    }

    @Override
    public void close() {
      server.close();
    }
  }

  /**
   * DER requests POSTed to a real service: always 200, with a reply its protocol's parser reads
   * ({@code kindOf} names the answer, or throws {@link Violation}).
   */
  private static final class DerOverHttp implements Target {
    interface Reading {
      String kindOf(byte[] reply) throws Violation;
    }

    private final AutoCloseable server;
    private final String url;
    private final String contentType;
    private final List<byte[]> seeds;
    private final Reading reading;
    private final HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    DerOverHttp(
        AutoCloseable server, String url, String contentType, List<byte[]> seeds, Reading reading) {
      this.server = server;
      this.url = url;
      this.contentType = contentType;
      this.seeds = seeds;
      this.reading = reading;
    }

    @Override
    public byte[] next(SplittableRandom random) {
      return Mutations.bytes(seeds.get(random.nextInt(seeds.size())), random);
    }

    @Override
    public String check(byte[] input) throws Exception {
      HttpResponse<byte[]> reply = post(http, url, contentType, input);
      if (reply.statusCode() != 200)
        throw new Violation(
            "answered HTTP "
                + reply.statusCode()
                + ": "
                + new String(reply.body(), StandardCharsets.UTF_8));
      return reading.kindOf(reply.body());
    }

    @Override
    public void close() {
      try {
        server.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Time-stamp requests to /tsa: an RFC 3161 TimeStampResp, granted or rejected in our words. */
  private static Target tsa(TestKeys fixture) throws Exception {
    TsaServer server =
        new TsaServer(
            new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
            "127.0.0.1",
            0);
    server.start();
    List<byte[]> seeds = new ArrayList<>();
    seeds.add(
        new TimeStampRequestGenerator()
            .generate(NISTObjectIdentifiers.id_sha256, new byte[32], BigInteger.TEN)
            .getEncoded());
    TimeStampRequestGenerator withCert = new TimeStampRequestGenerator();
    withCert.setCertReq(true);
    seeds.add(withCert.generate(NISTObjectIdentifiers.id_sha512, new byte[64]).getEncoded());
    TimeStampRequestGenerator withPolicy = new TimeStampRequestGenerator();
    withPolicy.setReqPolicy(new ASN1ObjectIdentifier("1.2.3.4.5"));
    seeds.add(
        withPolicy
            .generate(OIWObjectIdentifiers.idSHA1, new byte[20], BigInteger.valueOf(Long.MAX_VALUE))
            .getEncoded());
    return new DerOverHttp(
        server,
        server.url(),
        "application/timestamp-query",
        seeds,
        reply -> {
          TimeStampResponse response;
          try {
            response = new TimeStampResponse(reply);
          } catch (Exception e) {
            throw new Violation("the reply is no TimeStampResp: " + e);
          }
          String said = response.getStatusString();
          if (said != null && INSIDES.matcher(said).find())
            throw new Violation("rejected in our insides' words: " + said);
          return "status " + response.getStatus();
        });
  }

  /**
   * OCSP requests to /ocsp/intermediate-a: an RFC 6960 OCSPResponse, successful or an error status.
   */
  private static Target ocsp(TestKeys fixture) throws Exception {
    RevocationServer server = new RevocationServer(fixture.pki, "127.0.0.1", 0);
    server.start();
    var issuer =
        new org.bouncycastle.cert.jcajce.JcaX509CertificateHolder(
            fixture.pki.certificate("intermediate-a"));
    var digests = new org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder().build();
    var both = new org.bouncycastle.cert.ocsp.OCSPReqBuilder();
    List<byte[]> seeds = new ArrayList<>();
    for (String alias : List.of("signer-rsa2048-1", "signer-rsa2048-revoked")) {
      var leaf =
          new org.bouncycastle.cert.jcajce.JcaX509CertificateHolder(fixture.pki.certificate(alias));
      var id =
          new org.bouncycastle.cert.ocsp.CertificateID(
              digests.get(org.bouncycastle.cert.ocsp.CertificateID.HASH_SHA1),
              issuer,
              leaf.getSerialNumber());
      seeds.add(
          new org.bouncycastle.cert.ocsp.OCSPReqBuilder().addRequest(id).build().getEncoded());
      both.addRequest(id);
    }
    seeds.add(both.build().getEncoded());
    return new DerOverHttp(
        server,
        server.baseUrl() + "/ocsp/intermediate-a",
        "application/ocsp-request",
        seeds,
        reply -> {
          try {
            return "status " + new OCSPResp(reply).getStatus();
          } catch (Exception e) {
            throw new Violation("the reply is no OCSPResponse: " + e);
          }
        });
  }

  /**
   * Result files read as `pkibench report` reads them: refused as damaged (an IOException naming
   * the file, or an analysis the options cannot make) or read, analysed and rendered as a table,
   * CSV and HTML without a failure.
   */
  private static final class ResultFile implements Target {
    private final String seed;
    private final Path file;

    ResultFile(Path work) throws IOException {
      try (var in = DecoderFuzz.class.getResourceAsStream("/golden/run-v1.json")) {
        seed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      file = work.resolve("fuzzed.json");
    }

    @Override
    public byte[] next(SplittableRandom random) {
      return Mutations.text(seed, random).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String check(byte[] input) throws Exception {
      Files.write(file, input);
      RunResult result;
      try {
        result = RunResultJson.read(file);
      } catch (IOException refused) {
        if (!refused.getMessage().contains(file.toString()))
          throw new Violation("refused without naming the file: " + refused.getMessage());
        if (INSIDES.matcher(refused.getMessage()).find())
          throw new Violation("refused in our insides' words: " + refused.getMessage());
        return "refused as damaged";
      }
      Analysis analysis;
      try {
        analysis = Analysis.of(result, Analysis.Options.DEFAULT);
      } catch (IllegalArgumentException refused) {
        return "refused by the analysis";
      }
      result = result.withAnalysis(RunResultJson.mapper().valueToTree(analysis));
      if (result.study() != null) StudyTables.terminal(result);
      TerminalTable.render(result, analysis);
      RunResultCsv.toCsv(result);
      HtmlReport.render(result, analysis);
      return "read and rendered";
    }
  }

  /**
   * SMTP command lines to a real PEC provider on one connection (reconnecting when a command ends
   * it), as a stranger who has not logged in: every line answered with a reply code; no reply in
   * our insides' words; a RCPT answered 250 only for a mailbox the provider has (its users, or
   * posta-certificata, at its domain), the address taken out of the line as SubEthaSMTP takes it; a
   * MAIL FROM answered 250 only for an address outside the provider's domain of safe characters;
   * and, at the end, nothing written under the mailboxes or beside them (no message is ever sent:
   * this is the command and address parser alone).
   */
  private static final class SmtpCommands implements Target {
    private static final String DOMAIN = "pec1.test";
    private static final List<String> SEEDS =
        List.of(
            "MAIL FROM:<someone@elsewhere.test>",
            "MAIL FROM:<someone@elsewhere.test> SIZE=1000",
            "MAIL FROM:<>",
            "RCPT TO:<user1@pec1.test>",
            "RCPT TO:<USER2@Pec1.Test>",
            "RCPT TO:<posta-certificata@pec1.test>",
            "RCPT TO:</tmp/x/esc@pec1.test>",
            "RCPT TO:<\"../../../../tmp/y/esc\"@pec1.test>",
            "RCPT TO:<a/../../x@pec1.test>",
            "RCPT TO:<user1@elsewhere.test>",
            "RCPT TO: user3@pec1.test",
            "RCPT TO:<user1@pec1.test> NOTIFY=NEVER",
            "EHLO fuzz.test",
            "HELO fuzz.test",
            "NOOP",
            "RSET",
            "VRFY user1",
            "EXPN list",
            "HELP",
            "MAIL FROM:<user1@pec1.test>",
            "RCPT TO:<user1@[127.0.0.1]>",
            "RCPT TO:<@a,@b:user1@pec1.test>");

    /**
     * A mailbox of ours as a whole token: nothing of an address's characters (or / \\ ") right
     * before or after it.
     */
    private static final Pattern KNOWN_MAILBOX =
        Pattern.compile(
            "(?i)(?<![A-Za-z0-9._+\\-/\\\\\"@])(?:user[1-9]|posta-certificata)@pec1\\.test(?![A-Za-z0-9._+\\-/\\\\\"@])");

    /** An address of safe characters as a whole token. */
    private static final Pattern SAFE_SENDER =
        Pattern.compile(
            "(?<![A-Za-z0-9._+\\-/\\\\\"@])[A-Za-z0-9_+-]+(?:\\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*(?![A-Za-z0-9._+\\-/\\\\\"@])");

    private final PecServer provider;
    private final int port;
    private final Path mailboxes;
    private final Path work;
    private java.net.Socket socket;
    private java.io.InputStream in;
    private java.io.OutputStream out;
    private boolean inTransaction;
    private int recipients;

    SmtpCommands(TestKeys fixture, Path work) throws Exception {
      this.work = work;
      this.mailboxes = work.resolve("mail");
      var key = fixture.keys.key("signer-rsa2048-1");
      var index = new ProviderIndex(Map.of(DOMAIN, key.certificate()));
      var pec =
          new PecProvider(
              DOMAIN,
              "fuzz",
              key,
              index,
              InstantSource.system(),
              java.time.ZoneId.of("Europe/Rome"));
      var config =
          PecServer.Config.builder(DOMAIN, work.resolve("spool"), mailboxes)
              .bind("127.0.0.1")
              .workers(1)
              .relayDeadline(Duration.ofDays(1))
              .limits(
                  SmtpLimits.DEFAULTS
                      .withMaxMessageBytes(1 << 20)
                      .withMaxRecipients(10)
                      .withMaxConnections(20)
                      .withIdleTimeout(Duration.ofSeconds(30)))
              .build();
      var tls =
          TlsContexts.withIdentity(
              new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("tls-server"), null);
      provider = new PecServer(config, pec, new PecServer.Logins(tls, a -> null), line -> {});
      provider.start();
      port =
          Integer.parseInt(provider.baseUrl().substring(provider.baseUrl().lastIndexOf(':') + 1));
    }

    @Override
    public byte[] next(SplittableRandom random) {
      // one command line: the mutation's line breaks taken out (the framing is SubEthaSMTP's, not
      // what is fuzzed here)
      return Mutations.text(SEEDS.get(random.nextInt(SEEDS.size())), random)
          .replace("\r", "")
          .replace("\n", "")
          .getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String check(byte[] input) throws Exception {
      String line = new String(input, StandardCharsets.UTF_8);
      String verb =
          line.length() >= 4
              ? line.substring(0, 4).toUpperCase(java.util.Locale.ROOT)
              : line.toUpperCase(java.util.Locale.ROOT);
      // the verbs that change the conversation's state in ways one line cannot follow are sent as
      // NOOP instead
      if (List.of("DATA", "BDAT", "STAR", "QUIT", "AUTH").contains(verb)) line = "NOOP " + line;
      // a connection the previous command ended (a 221, a drop after too many errors) is opened
      // again once;
      // a fresh connection that ends on this line without a reply is a violation
      String reply = null;
      for (int attempt = 0; attempt < 2 && reply == null; attempt++) {
        if (socket == null) connect();
        if (verb.equals("RCPT") && !inTransaction) {
          String mail = say("MAIL FROM:<someone@elsewhere.test>");
          if (mail == null) {
            disconnect();
            continue;
          }
          // 503: a sender is there already, from a line this state did not follow; either way a
          // transaction is open
          if (!mail.startsWith("250") && !mail.startsWith("503"))
            throw new Violation("a plain MAIL FROM before the RCPT answered " + mail);
          inTransaction = true;
          recipients = 0;
        }
        reply = say(line);
        if (reply == null) disconnect();
      }
      if (reply == null) throw new Violation("the connection ended on this line without a reply");
      if (!reply.matches("[2-5][0-9][0-9][ -].*|[2-5][0-9][0-9]"))
        throw new Violation("not an SMTP reply: " + reply);
      if (INSIDES.matcher(reply).find())
        throw new Violation("answered in our insides' words: " + reply);
      String code = reply.substring(0, 3);
      String upper = line.toUpperCase(java.util.Locale.ROOT);
      if (code.equals("250") && upper.startsWith("RCPT")) {
        // however the library cut the address out of the line, what it took must be one of our
        // mailboxes, whole
        if (!KNOWN_MAILBOX.matcher(line).find())
          throw new Violation(
              "RCPT answered 250 naming no mailbox of " + DOMAIN + " whole: " + line);
        if (++recipients >= 8) {
          say("RSET");
          inTransaction = false;
        }
      }
      if (code.equals("250") && upper.startsWith("MAIL")) {
        // no @ at all is the null sender (RFC 5321's <>, however mangled): allowed, it names no one
        if (line.indexOf('@') >= 0 && !SAFE_SENDER.matcher(line).find())
          throw new Violation("MAIL answered 250 for no address of safe characters: " + line);
        inTransaction = true;
        recipients = 0;
      }
      if (code.equals("250")
          && (upper.startsWith("RSET") || upper.startsWith("EHLO") || upper.startsWith("HELO")))
        inTransaction = false;
      if (code.equals("421")) disconnect();
      return code;
    }

    private void connect() throws Exception {
      socket = new java.net.Socket("127.0.0.1", port);
      socket.setTcpNoDelay(true); // each command one segment: no reply waits on a delayed ACK
      socket.setSoTimeout(10_000);
      in = new java.io.BufferedInputStream(socket.getInputStream());
      out = socket.getOutputStream();
      String greeting = reply();
      if (greeting == null || !greeting.startsWith("220"))
        throw new Violation("greeting: " + greeting);
      inTransaction = false;
    }

    /** One command, its reply (lines joined), or null when the server closed the connection. */
    private String say(String line) throws Exception {
      try {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        return reply();
      } catch (java.net.SocketTimeoutException e) {
        throw new Violation("no reply within 10 s to " + line);
      } catch (IOException e) {
        return null;
      }
    }

    private String reply() throws IOException {
      StringBuilder all = new StringBuilder();
      while (true) {
        java.io.ByteArrayOutputStream l = new java.io.ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
          if (b < 0) return null;
          if (b != '\r') l.write(b);
        }
        String text = l.toString(StandardCharsets.ISO_8859_1);
        if (!all.isEmpty()) all.append(' ');
        all.append(text);
        if (text.length() < 4 || text.charAt(3) != '-') return all.toString();
      }
    }

    private void disconnect() {
      try {
        if (socket != null) socket.close();
      } catch (IOException e) {
        // gone already
      }
      socket = null;
    }

    @Override
    public void close() {
      disconnect();
      provider.close();
      try (var made = Files.walk(work)) {
        List<Path> stray =
            made.filter(Files::isDirectory)
                .filter(
                    d ->
                        !d.startsWith(work.resolve("spool"))
                            && !d.startsWith(work.resolve("pki"))
                            && !d.equals(work))
                .toList();
        if (!stray.isEmpty())
          throw new IllegalStateException("directories made by RCPT alone: " + stray);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  private static HttpResponse<byte[]> post(HttpClient http, String url, String type, byte[] body)
      throws Violation, InterruptedException {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create(url))
              .timeout(Duration.ofSeconds(30))
              .header("Content-Type", type)
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build(),
          HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new Violation("no answer from " + url + " (" + e + ")");
    }
  }

  // ---- memory

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) pool.resetPeakUsage();
  }

  private static long peakHeap() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) peak += pool.getPeakUsage().getUsed();
    }
    return peak;
  }

  /** Where in pkibench's code an escaped exception came from: its first frames of ours. */
  private static String ourFrames(Throwable e) {
    return Arrays.stream(e.getStackTrace())
        .filter(
            f ->
                f.getClassName().startsWith("io.pkibench.")
                    && !f.getClassName().contains("DecoderFuzz"))
        .limit(3)
        .map(StackTraceElement::toString)
        .toList()
        .toString();
  }

  private static String shown(byte[] input) {
    String text =
        new String(input, 0, Math.min(input.length, 300), StandardCharsets.ISO_8859_1)
            .replaceAll("[^ -~]", "·");
    return input.length > 300 ? text + "… (" + input.length + " bytes)" : text;
  }

  /**
   * {@code DecoderFuzz [TARGET|all] [INPUTS] [SEED]}: prints each target's outcome; exits 1 on a
   * violation.
   */
  public static void main(String[] args) throws Exception {
    List<String> targets =
        args.length > 0 && !args[0].equals("all") ? List.of(args[0].split(",")) : TARGETS;
    long inputs = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 20_261_123;
    Path work = Files.createTempDirectory("pkibench-fuzz");
    boolean violated = false;
    for (String target : targets) {
      long start = System.nanoTime();
      Outcome o = run(target, inputs, seed, work.resolve(target));
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "%-11s %,d inputs in %.0f s (%,.0f/s); answers %s; slowest %.1f ms; peak heap %d MB of %d MB%n",
          target,
          o.inputs(),
          seconds,
          o.inputs() / seconds,
          o.answers(),
          o.slowestNanos() / 1e6,
          o.peakHeapBytes() >> 20,
          Runtime.getRuntime().maxMemory() >> 20);
      if (o.violation() != null) {
        System.out.println("VIOLATION in " + target + ": " + o.violation());
        violated = true;
      }
    }
    System.exit(violated ? 1 : 0);
  }
}
