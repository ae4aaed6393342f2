package io.pkibench.server.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.study.RestPkiStudy;
import io.pkibench.study.StudyOptions;
import io.pkibench.testing.Flip;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.http.HttpSigningWorkload;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The http:* client checks given a signing service that answers wrongly: a real HTTPS front on
 * loopback passes every call to the real service ({@code serve signer}'s server) and spoils its
 * answer to the last call of each operation — a byte of the signed document's signature value (raw
 * in CAdES, hex in the PDF's /Contents, base64 in ds:SignatureValue), a byte of the time-stamp
 * token's signature, a login answered {@code valid:false}, or an HTTP 500. Each must be counted as
 * a failed operation naming what was wrong, and the run must go on. (cades-t and pades reach the
 * same checks as cades and pades-t: SignatureTimeStampCheckTest shows the B-T part through
 * AdesChecks.)
 */
@org.junit.jupiter.api.Timeout(
    value = 3,
    unit = java.util.concurrent.TimeUnit.MINUTES) // talks to a server: a hang fails, said as one
class SignerServiceFaultsTest {
  @TempDir static Path tmp;
  static TestKeys fixture;
  static SignerServer service;
  static TamperingFront front;
  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What the front does to the answer of an operation's last call (finish, or the time-stamp
   * reply).
   */
  enum Fault {
    FLIP_SIGNATURE_VALUE,
    FLIP_TOKEN_SIGNATURE,
    LOGIN_NOT_VALID,
    HTTP_500,
    /** the answer's first half, sent as if whole */
    TRUNCATED,
    /**
     * the answer's CMS SignedData with a second SignerInfo beside the service's: a copy of it whose
     * signature value is changed, so that a check of the first alone passes
     */
    EXTRA_SIGNER,
    /**
     * not an answer spoiled: the document in the start call changed before the service sees it, so
     * that it signs other bytes than the client sent (one byte of random content or of the PDF's
     * image stream, a digit of the XML message's amount)
     */
    OTHER_DOCUMENT
  }

  @BeforeAll
  static void start() throws Exception {
    fixture = TestKeys.in(tmp);
    SigningKey tls = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("tls-server");
    service =
        new SignerServer(
            new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
            CertificateLogin.of(fixture.pki, CertificateLogin.Revocation.CRL),
            TlsContexts.withIdentity(tls, null),
            "127.0.0.1",
            0,
            InstantSource.system());
    service.start();
    front =
        new TamperingFront(
            tls,
            URI.create(service.baseUrl()),
            TlsContexts.trusting(fixture.pki.certificate("root-ca")));
  }

  @AfterAll
  static void stop() {
    if (front != null) front.close();
    if (service != null) service.close();
  }

  static Workload client(String kind) throws Exception {
    return client(kind, Map.of(), 1);
  }

  /** {@code extra} params beside the target; one answer in {@code verifyEvery} checked. */
  static Workload client(String kind, Map<String, String> extra, int verifyEvery) throws Exception {
    var factory = new HttpSigningWorkload.Factory(kind);
    Map<String, String> params =
        new HashMap<>(
            kind.startsWith("cades") || kind.equals("xades")
                ? Map.of(
                    "target",
                    front.url(),
                    "certs",
                    "1",
                    "size",
                    "4k") // a small document: more operations in the short run
                : Map.of("target", front.url(), "certs", "1"));
    params.putAll(extra);
    return factory.create(
        new WorkloadContext(
            fixture.keys, true, () -> fixture.pki, InstantSource.system(), Map.of(), verifyEvery),
        Params.resolve(factory.name(), factory.params(), params));
  }

  /** The documents the front saw in start calls since {@code from}. */
  static List<byte[]> documentsSentSince(int from) throws Exception {
    List<byte[]> documents = new ArrayList<>();
    synchronized (front.starts) {
      for (byte[] start : front.starts.subList(from, front.starts.size()))
        documents.add(Base64.getDecoder().decode(JSON.readTree(start).get("document").asText()));
    }
    return documents;
  }

  /**
   * -p document=random: each operation of a worker sends fresh bytes, so that a service answering
   * from a cache, or with another request's signature, is seen; every answer checked and counted.
   */
  @org.junit.jupiter.api.Test
  void operations_documentRandom_eachSendsOtherBytes_eachChecked() throws Exception {
    front.fault.set(null);
    int from = front.starts.size();
    try (Workload w = client("cades", Map.of("document", "random"), 1)) {
      var operation = (CheckedOperation) w.newOperation(0);
      assertTrue(operation.executeChecked(), "the first answer checked");
      assertTrue(operation.executeChecked(), "the second answer checked");
    }
    List<byte[]> sent = documentsSentSince(from);
    assertEquals(2, sent.size());
    assertEquals(4096, sent.get(0).length, "-p size bytes");
    assertFalse(Arrays.equals(sent.get(0), sent.get(1)), "two operations, two documents");
  }

  /**
   * -p document=pdf (and the PAdES types): the sample PDF, each operation's copy with an identifier
   * of its own in its XMP metadata, still a PDF that the service signs and the check accepts.
   */
  @ParameterizedTest(name = "http:{0}")
  @CsvSource({"cades", "pades"})
  void operations_documentPdf_eachItsOwnIdentifier_signedAndChecked(String kind) throws Exception {
    front.fault.set(null);
    int from = front.starts.size();
    try (Workload w =
        client(kind, kind.equals("cades") ? Map.of("document", "pdf") : Map.of(), 1)) {
      var operation = (CheckedOperation) w.newOperation(3);
      assertTrue(operation.executeChecked());
      assertTrue(operation.executeChecked());
    }
    List<String> identifiers = new ArrayList<>();
    for (byte[] pdf : documentsSentSince(from)) {
      assertTrue(pdf.length > 130_000, "the 137 KB sample: " + pdf.length);
      try (var document = org.apache.pdfbox.Loader.loadPDF(pdf)) {
        String xmp =
            new String(
                document.getDocumentCatalog().getMetadata().toByteArray(), StandardCharsets.UTF_8);
        Matcher id = Pattern.compile("pkibench-operation:([0-9a-f]{24})").matcher(xmp);
        assertTrue(id.find(), xmp);
        identifiers.add(id.group(1));
        assertEquals(4, document.getNumberOfPages());
      }
    }
    assertEquals(2, identifiers.size());
    assertFalse(identifiers.get(0).equals(identifiers.get(1)), identifiers.toString());
  }

  /**
   * --verify-sample 3: a worker's first answer checked, then one in three; the others not, and said
   * so; a check sampled on a service that signs other bytes fails the operation.
   */
  @org.junit.jupiter.api.Test
  void operations_verifySample3_oneInThreeChecked_aSampledCheckStillRefuses() throws Exception {
    front.fault.set(null);
    try (Workload w = client("cades", Map.of(), 3)) {
      var operation = (CheckedOperation) w.newOperation(0);
      List<Boolean> checked = new ArrayList<>();
      for (int i = 0; i < 4; i++) checked.add(operation.executeChecked());
      assertEquals(List.of(true, false, false, true), checked);
      front.fault.set(Fault.OTHER_DOCUMENT);
      assertFalse(operation.executeChecked(), "not sampled: not checked, said so");
      assertFalse(operation.executeChecked(), "not sampled: not checked, said so");
      assertThrows(Exception.class, operation::executeChecked, "sampled: refused");
    } finally {
      front.fault.set(null);
    }
  }

  /**
   * The restpki study against a service that signs other bytes than it was sent: no operation of
   * any row is counted as done, every one failed by the check (before the study verified, each
   * counted as a success: an HTTP 200 with a signature).
   */
  @org.junit.jupiter.api.Test
  void study_restpkiOnAServiceSigningOtherBytes_noRowCountsAnOperationDone() throws Exception {
    front.fault.set(Fault.OTHER_DOCUMENT);
    try {
      RestPkiStudy study =
          new RestPkiStudy(
                  false,
                  List.of(new RestPkiStudy.Service(RestPkiStudy.Service.BUILTIN, front.url())),
                  null)
              .only(
                  RestPkiStudy.TYPES.stream()
                      .filter(t -> t.label().equals("CAdES") || t.label().equals("PAdES"))
                      .toList());
      StudyOptions options =
          new StudyOptions(true, Duration.ofSeconds(10), "software", tmp.resolve("pki"), null)
              .withQuickIterationsOfAtMost(Duration.ofMillis(300));
      List<String> log = Collections.synchronizedList(new ArrayList<>());
      RunResult result =
          fixture
              .studyRunner(tmp.resolve("other-bytes.json"), log)
              .run(study, options, fixture.environment("study restpki"));
      List<WorkloadResult> workloads = result.workloads();
      assertEquals(
          List.of("http:cades", "http:pades"),
          workloads.stream().filter(x -> !x.probe()).map(WorkloadResult::name).toList(),
          log.toString());
      for (WorkloadResult w : workloads) {
        for (LevelResult l : w.levels()) {
          assertEquals(0, l.counts().succeeded(), w.name() + " " + l.counts());
          assertEquals(0L, l.counts().verified(), w.name() + ": checked, none passed");
          assertTrue(l.counts().failed() > 0, w.name() + " " + l.counts());
        }
      }
    } finally {
      front.fault.set(null);
    }
  }

  /**
   * study --verify-sample 3: each measured level checks a worker's first answer and then one in
   * three, so its verified count is about a third of its succeeded (the ok column says "V/S"),
   * never all of them, never none.
   */
  @org.junit.jupiter.api.Test
  void study_restpkiWithVerifySample3_eachLevelChecksAboutOneInThree() throws Exception {
    front.fault.set(null);
    RestPkiStudy study =
        new RestPkiStudy(
                false,
                List.of(new RestPkiStudy.Service(RestPkiStudy.Service.BUILTIN, front.url())),
                null)
            .only(RestPkiStudy.TYPES.stream().filter(t -> t.label().equals("CAdES")).toList());
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", tmp.resolve("pki"), null)
            .withQuickIterationsOfAtMost(Duration.ofMillis(300));
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    RunResult result =
        fixture
            .studyRunner(tmp.resolve("sampled.json"), log, 3)
            .run(study, options, fixture.environment("study restpki --verify-sample 3"));
    List<LevelResult> levels =
        result.workloads().stream().flatMap(w -> w.levels().stream()).toList();
    assertFalse(levels.isEmpty(), log.toString());
    // A level of few operations may check none of them (each worker's first was in the warm-up):
    // checked answers are counted across the levels.
    for (LevelResult l : levels) {
      assertEquals(0, l.counts().failed(), l.counts().toString());
      assertTrue(l.counts().verified() <= l.counts().succeeded(), l.counts().toString());
    }
    assertTrue(
        levels.stream().mapToLong(l -> l.counts().verified()).sum() > 0,
        "some answers checked: " + levels.stream().map(LevelResult::counts).toList());
    // A worker checks its first answer, then every third: at most a third plus one per worker.
    // Told apart from "every one" (verified = succeeded) wherever a level made more than 1.5
    // operations per worker: the level with the most is held to it.
    LevelResult most =
        levels.stream()
            .max(Comparator.comparingDouble(l -> l.counts().succeeded() / (double) l.concurrency()))
            .orElseThrow();
    long succeeded = most.counts().succeeded();
    assertTrue(
        succeeded >= 2L * most.concurrency(),
        "too few operations per worker to tell one in three from all: " + most.counts());
    assertTrue(
        most.counts().verified() <= succeeded / 3 + most.concurrency(),
        "one in three checked at c=" + most.concurrency() + ": " + most.counts());
  }

  @ParameterizedTest(name = "http:{0}, {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "cades     | FLIP_SIGNATURE_VALUE | the CAdES signature does not verify with BouncyCastle",
        "pades-t   | FLIP_SIGNATURE_VALUE | the PAdES signature does not verify with BouncyCastle",
        "xades     | FLIP_SIGNATURE_VALUE | the XAdES signature does not validate with the JDK's XMLDSig",
        "timestamp | FLIP_TOKEN_SIGNATURE | the token does not verify with its TSA certificate",
        "auth      | LOGIN_NOT_VALID      | login answered without valid=true",
        "cades     | HTTP_500             | HTTP 500 from api/signatures/",
        "auth      | HTTP_500             | HTTP 500 from api/auth/",
        "timestamp | HTTP_500             | HTTP 500 from api/timestamp",
        "cades     | TRUNCATED            | the service's answer is not whole JSON",
        "auth      | TRUNCATED            | the service's answer is not whole JSON",
        "cms       | EXTRA_SIGNER         | the service's CMS SignedData holds 2 SignerInfos, not the one",
        "timestamp | TRUNCATED            | the TSA's reply is not a DER TimeStampResp"
      })
  void run_serviceAnswerSpoiled_everyOperationCountedFailedWithTheCheckMessage(
      String kind, Fault fault, String message) throws Exception {
    // first the same client through the same front with the answers untouched: it passes (and is
    // warm), so the fault alone makes the failures
    front.fault.set(null);
    try (Workload w = client(kind)) {
      MeasuredRun.of("http:" + kind + ", answers passed on as they are", w, Duration.ofMillis(400))
          .assertEverySucceeded();
    }
    front.fault.set(fault);
    try (Workload w = client(kind)) {
      MeasuredRun.of(
              "http:" + kind + ", " + fault,
              w,
              Duration.ofMillis(fault == Fault.FLIP_SIGNATURE_VALUE ? 2000 : 1200))
          .assertEveryFailedWith(message); // a signature: up to a second on a loaded machine
    }
  }

  @ParameterizedTest(name = "http:{0} --verify, a service that signs other bytes")
  @CsvSource(
      delimiter = '|',
      value = {
        "cades | message-digest attribute value does not match calculated value",
        "pades | the signed revision is not the PDF sent: it differs from it at byte",
        "xades | the XAdES signature's whole-document reference covers another document than the"
            + " one sent"
      })
  void run_serviceSignsOtherBytesThanSent_everyOperationCountedFailed(String kind, String message)
      throws Exception {
    front.fault.set(Fault.OTHER_DOCUMENT);
    try {
      try (Workload w = client(kind)) {
        MeasuredRun.of("http:" + kind + ", other bytes signed", w, Duration.ofMillis(2000))
            .assertEveryFailedWith(message);
      }
    } finally {
      front.fault.set(null);
    }
  }

  /** The start call's request with its document changed, as {@link Fault#OTHER_DOCUMENT} says. */
  static byte[] withOtherDocument(byte[] request) throws Exception {
    ObjectNode start = (ObjectNode) JSON.readTree(request);
    byte[] document = Base64.getDecoder().decode(start.get("document").asText());
    String text = new String(document, StandardCharsets.ISO_8859_1);
    String amount = "<IntrBkSttlmAmt Ccy=\"BRL\">";
    int at =
        text.contains(amount)
            ? text.indexOf(amount) + amount.length()
            : document.length / 3; // random bytes, or inside the sample PDF's image stream
    document[at] =
        (byte) (document[at] == '9' ? '8' : document[at] == '8' ? '9' : document[at] ^ 1);
    start.put("document", Base64.getEncoder().encodeToString(document));
    return JSON.writeValueAsBytes(start);
  }

  /**
   * An HTTPS server with the test PKI's TLS identity that relays to {@code target} and spoils
   * answers as {@link #fault} says.
   */
  static final class TamperingFront implements AutoCloseable {
    final AtomicReference<Fault> fault = new AtomicReference<>();

    /** Every start call's request as the client sent it. */
    final List<byte[]> starts = Collections.synchronizedList(new ArrayList<>());

    private final HttpsServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private final HttpClient relay;

    TamperingFront(SigningKey tls, URI target, javax.net.ssl.SSLContext trustingTarget)
        throws Exception {
      relay =
          HttpClient.newBuilder()
              .sslContext(trustingTarget)
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
      server.setHttpsConfigurator(new HttpsConfigurator(TlsContexts.withIdentity(tls, null)));
      server.setExecutor(threads);
      server.createContext(
          "/",
          exchange -> {
            try (exchange) {
              byte[] request = exchange.getRequestBody().readAllBytes();
              String path = exchange.getRequestURI().getPath();
              if (path.contains("/signatures/") && path.endsWith("/start")) starts.add(request);
              if (fault.get() == Fault.OTHER_DOCUMENT
                  && path.contains("/signatures/")
                  && path.endsWith("/start")) request = withOtherDocument(request);
              HttpResponse<byte[]> answer =
                  relay.send(
                      HttpRequest.newBuilder(target.resolve(path))
                          .timeout(Duration.ofSeconds(30))
                          .header(
                              "Content-Type", exchange.getRequestHeaders().getFirst("Content-Type"))
                          .POST(HttpRequest.BodyPublishers.ofByteArray(request))
                          .build(),
                      HttpResponse.BodyHandlers.ofByteArray());
              byte[] body = answer.body();
              int status = answer.statusCode();
              Fault now = fault.get();
              boolean last = path.endsWith("/finish") || path.endsWith("/timestamp");
              if (now != null && now != Fault.OTHER_DOCUMENT && last && status == 200) {
                if (now == Fault.HTTP_500) {
                  status = 500;
                  body =
                      "{\"error\":\"internal\",\"message\":\"planted\"}"
                          .getBytes(StandardCharsets.US_ASCII);
                } else {
                  body = spoiled(now, request, body);
                }
              }
              exchange
                  .getResponseHeaders()
                  .set(
                      "Content-Type",
                      answer
                          .headers()
                          .firstValue("Content-Type")
                          .orElse("application/octet-stream"));
              exchange.sendResponseHeaders(status, body.length);
              exchange.getResponseBody().write(body);
            } catch (Exception e) {
              byte[] error = String.valueOf(e).getBytes(StandardCharsets.UTF_8);
              exchange.sendResponseHeaders(502, error.length);
              exchange.getResponseBody().write(error);
            }
          });
      server.start();
    }

    String url() {
      return "https://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    @Override
    public void close() {
      server.stop(0);
      threads.shutdownNow();
      relay.shutdownNow();
    }
  }

  static byte[] spoiled(Fault fault, byte[] request, byte[] body) throws Exception {
    return switch (fault) {
      case FLIP_SIGNATURE_VALUE -> {
        ObjectNode answer = (ObjectNode) JSON.readTree(body);
        byte[] signed = Base64.getDecoder().decode(answer.get("signed").asText());
        byte[] value = Base64.getDecoder().decode(JSON.readTree(request).get("signature").asText());
        answer.put(
            "signed", Base64.getEncoder().encodeToString(withSignatureValueFlipped(signed, value)));
        yield JSON.writeValueAsBytes(answer);
      }
      case FLIP_TOKEN_SIGNATURE -> Flip.inTokenSignature(body);
      case LOGIN_NOT_VALID -> {
        ObjectNode answer = (ObjectNode) JSON.readTree(body);
        assertTrue(
            answer.path("valid").asBoolean(),
            "the service accepted the login it is relayed: " + answer);
        answer.put("valid", false);
        yield JSON.writeValueAsBytes(answer);
      }
      case HTTP_500 -> throw new IllegalArgumentException("answered by the front itself");
      case TRUNCATED -> java.util.Arrays.copyOf(body, body.length / 2);
      case EXTRA_SIGNER -> {
        ObjectNode answer = (ObjectNode) JSON.readTree(body);
        byte[] signed = Base64.getDecoder().decode(answer.get("signed").asText());
        answer.put("signed", Base64.getEncoder().encodeToString(withASecondSigner(signed)));
        yield JSON.writeValueAsBytes(answer);
      }
      case OTHER_DOCUMENT ->
          throw new IllegalArgumentException("spoils the request, not the answer");
    };
  }

  /**
   * The CMS {@code signed} with a second SignerInfo after its own: the same signer's, its signature
   * value's middle byte changed (so it verifies under no key).
   */
  static byte[] withASecondSigner(byte[] signed) throws Exception {
    var info = org.bouncycastle.asn1.cms.ContentInfo.getInstance(signed);
    var data = org.bouncycastle.asn1.cms.SignedData.getInstance(info.getContent());
    var own =
        org.bouncycastle.asn1.cms.SignerInfo.getInstance(data.getSignerInfos().getObjectAt(0));
    byte[] value = own.getEncryptedDigest().getOctets().clone();
    value[value.length / 2] ^= 0x01;
    var other =
        new org.bouncycastle.asn1.cms.SignerInfo(
            own.getSID(),
            own.getDigestAlgorithm(),
            own.getAuthenticatedAttributes(),
            own.getDigestEncryptionAlgorithm(),
            new org.bouncycastle.asn1.DEROctetString(value),
            own.getUnauthenticatedAttributes());
    var twice =
        new org.bouncycastle.asn1.cms.SignedData(
            data.getDigestAlgorithms(),
            data.getEncapContentInfo(),
            data.getCertificates(),
            data.getCRLs(),
            // a DL set keeps the service's own first, where a DER set would sort the two
            new org.bouncycastle.asn1.DLSet(
                new org.bouncycastle.asn1.ASN1Encodable[] {own, other}));
    return new org.bouncycastle.asn1.cms.ContentInfo(info.getContentType(), twice)
        .getEncoded(org.bouncycastle.asn1.ASN1Encoding.DL);
  }

  /**
   * {@code signed} with one byte of the signature value the client sent changed, wherever the
   * format keeps it: as raw bytes (a CMS), as hex digits (a PDF's /Contents) or as base64
   * (XMLDSig's SignatureValue).
   */
  static byte[] withSignatureValueFlipped(byte[] signed, byte[] value) {
    byte[] out = signed.clone();
    int raw = Flip.indexOf(out, value);
    if (raw >= 0) {
      out[raw + value.length / 2] ^= 0x01;
      return out;
    }
    String text = new String(signed, StandardCharsets.ISO_8859_1);
    for (String hex :
        new String[] {
          HexFormat.of().withUpperCase().formatHex(value), HexFormat.of().formatHex(value)
        }) {
      int at = text.indexOf(hex);
      if (at >= 0) {
        int digit = at + hex.length() / 2;
        out[digit] = (byte) (out[digit] == '0' ? '1' : '0');
        return out;
      }
    }
    Matcher xml = Pattern.compile("SignatureValue[^>]*>\\s*").matcher(text);
    assertTrue(
        xml.find(),
        "the signed document holds the signature value raw, in hex or in a ds:SignatureValue");
    int digit = xml.end() + 8;
    out[digit] = (byte) (out[digit] == 'A' ? 'B' : 'A');
    return out;
  }
}
