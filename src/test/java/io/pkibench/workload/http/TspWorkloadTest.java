package io.pkibench.workload.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.keys.SigningKey;
import io.pkibench.server.tsa.TsaServer;
import io.pkibench.testing.Await;
import io.pkibench.testing.DerFront;
import io.pkibench.testing.Flip;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.OpensslServices;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tsp} against TSAs on loopback: OpenSSL's ({@code openssl ts -reply} behind a minimal
 * front), ours ({@code serve tsa}'s server), and fronts that tamper with what they pass on or
 * answer as broken services do.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class TspWorkloadTest {
  @TempDir static Path tmp;
  static TestKeys fixture;
  static SigningKey tsaKey;
  static DerFront.Backend openssl;
  static DerFront opensslFront;
  static String rootPem;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = TestKeys.in(tmp);
    tsaKey = fixture.keys.key("tsa");
    openssl =
        OpensslServices.tsa(
            tmp.resolve("openssl-ts"),
            tsaKey.certificate(),
            tsaKey.privateKey(),
            tsaKey.chain(),
            4);
    opensslFront = new DerFront("application/timestamp-reply", openssl);
    rootPem = fixture.pki.certificatePem("root-ca").toString();
  }

  @AfterAll
  static void tearDown() {
    if (opensslFront != null) opensslFront.close();
  }

  /** Long enough for several openssl processes on a loaded two-core machine. */
  static final Duration LONG = Duration.ofSeconds(1);

  static Workload tsp(String target, Map<String, String> extra) throws Exception {
    var factory = new TspWorkload.Factory();
    Map<String, String> params = new HashMap<>(extra);
    params.put("target", target);
    Params resolved = Params.resolve("tsp", factory.params(), params);
    assertEquals(List.of(), factory.problems(resolved, "software"));
    return factory.create(new WorkloadContext(null, false, () -> fixture.pki), resolved);
  }

  @Test
  void run_opensslTsaWithItsRootTrusted_everyTokenVerifies() throws Exception {
    long before = opensslFront.answered();
    try (Workload w = tsp(opensslFront.url("/tsa"), Map.of("trust", rootPem))) {
      MeasuredRun run = MeasuredRun.of("tsp against openssl ts", w, LONG).assertEverySucceeded();
      assertEquals(
          run.started(),
          opensslFront.answered() - before,
          "every operation was answered by openssl");
    }
  }

  @Test
  void run_opensslTsaWithTheRequestedPolicy_tokensCarryIt() throws Exception {
    try (Workload w =
        tsp(opensslFront.url("/tsa"), Map.of("trust", rootPem, "policy", "1.2.3.4.5"))) {
      MeasuredRun.of("tsp asking policy 1.2.3.4.5", w, LONG).assertEverySucceeded();
    }
  }

  @Test
  void run_trustOfAnotherPki_everyTokenCountedUntrusted() throws Exception {
    TestKeys another = TestKeys.in(tmp.resolve("another"));
    try (Workload w =
        tsp(
            opensslFront.url("/tsa"),
            Map.of("trust", another.pki.certificatePem("root-ca").toString()))) {
      MeasuredRun.of("tsp trusting another root", w, LONG)
          .assertEveryFailedWith("the token's TSA is not trusted");
    }
  }

  @Test
  void run_ourServeTsaServer_everyTokenVerifies() throws Exception {
    try (TsaServer server =
        new TsaServer(new TimeStampAuthority(tsaKey, InstantSource.system()), "127.0.0.1", 0)) {
      server.start();
      try (Workload w = tsp(server.url(), Map.of("trust", rootPem))) {
        MeasuredRun.of("tsp against serve tsa", w, LONG).assertEverySucceeded();
      }
    }
  }

  @Test
  void run_tsaAnsweringAnotherNonce_everyOperationCountedWithTheReason() throws Exception {
    try (DerFront front =
            new DerFront(
                "application/timestamp-reply",
                OpensslServices.answeringAnotherRequest(openssl, true));
        Workload w = tsp(front.url("/tsa"), Map.of("trust", rootPem))) {
      MeasuredRun.of("tsp, nonce changed", w, LONG)
          .assertEveryFailedWith("does not echo the request's nonce");
    }
  }

  @Test
  void run_tsaStampingAnotherImprint_everyOperationCountedWithTheReason() throws Exception {
    try (DerFront front =
            new DerFront(
                "application/timestamp-reply",
                OpensslServices.answeringAnotherRequest(openssl, false));
        Workload w = tsp(front.url("/tsa"), Map.of("trust", rootPem))) {
      MeasuredRun.of("tsp, imprint changed", w, LONG)
          .assertEveryFailedWith("message imprint is not the request's");
    }
  }

  /**
   * A bit of the token's signature flipped on the way, and a TSA that leaves its certificate out
   * though asked for it.
   */
  @Test
  void run_tokenSignatureFlippedOrCertificateLeftOut_everyOperationCountedWithTheReason()
      throws Exception {
    try (DerFront front =
            new DerFront(
                "application/timestamp-reply",
                request -> Flip.inTokenSignature(openssl.answer(request)));
        Workload w = tsp(front.url("/tsa"), Map.of("trust", rootPem))) {
      MeasuredRun.of("tsp, token signature flipped", w, LONG)
          .assertEveryFailedWith("the token does not verify with its TSA certificate");
    }
    DerFront.Backend withoutCertificate =
        request -> {
          var asked = new org.bouncycastle.tsp.TimeStampRequest(request);
          var generator = new org.bouncycastle.tsp.TimeStampRequestGenerator();
          generator.setCertReq(false);
          return openssl.answer(
              generator
                  .generate(
                      asked.getMessageImprintAlgOID(),
                      asked.getMessageImprintDigest(),
                      asked.getNonce())
                  .getEncoded());
        };
    try (DerFront front = new DerFront("application/timestamp-reply", withoutCertificate);
        Workload w = tsp(front.url("/tsa"), Map.of("trust", rootPem))) {
      MeasuredRun.of("tsp, TSA certificate left out", w, LONG)
          .assertEveryFailedWith(
              "the token carries no TSA certificate although the request asked for it");
    }
  }

  @Test
  void run_tsaAnswering500_htmlOrTruncated_eachCountedWithItsReason() throws Exception {
    try (DerFront front = new DerFront("application/timestamp-reply", openssl);
        Workload w = tsp(front.url("/tsa"), Map.of("trust", rootPem))) {
      front.fault(DerFront.Fault.HTTP_500);
      MeasuredRun.of("tsp, HTTP 500", w, LONG)
          .assertEveryFailedWith("HTTP 500 from " + front.url("/tsa") + ": internal error");
      front.fault(DerFront.Fault.HTML);
      MeasuredRun.of("tsp, HTML", w, LONG)
          .assertEveryFailedWith("answered text/html, not application/timestamp-reply: <html>");
      front.fault(DerFront.Fault.TRUNCATED);
      MeasuredRun.of("tsp, truncated", w, LONG)
          .assertEveryFailedWith("the TSA's reply is not a DER TimeStampResp");
    }
  }

  @Test
  void run_tsaGoingDownMidRun_laterOperationsCountedAndTheRunGoesOn() throws Exception {
    DerFront front = new DerFront("application/timestamp-reply", openssl);
    try (Workload w = tsp(front.url("/tsa"), Map.of("trust", rootPem))) {
      // warm first (a cold first answer took 2 s on the loaded machine), then down once it has
      // answered two more:
      // not after a guessed pause, which a loaded machine may spend before the first answer
      MeasuredRun.of("tsp, warming", w, Duration.ofMillis(500)).assertEverySucceeded();
      long warm = front.answered();
      Thread.ofPlatform()
          .start(
              () -> {
                try {
                  Await.until(
                      Duration.ofSeconds(30), "two answers", () -> front.answered() >= warm + 2);
                } catch (Throwable notAnswered) {
                  // the run's own assertions below say what it saw
                }
                front.close();
              });
      MeasuredRun run = MeasuredRun.of("tsp, TSA stopped", w, Duration.ofMillis(3000));
      assertTrue(run.succeeded() > 0, "answered before it went down: " + run);
      assertTrue(
          run.failed() > 1, "every later operation counted as failed, the run going on: " + run);
      assertTrue(
          run.errors().keySet().stream()
              .allMatch(
                  cause -> cause.contains("ConnectException") || cause.contains("IOException")),
          run.errors().toString());
    } finally {
      front.close();
    }
  }

  @Test
  void notes_withoutTrust_sayTokensNotVerified_withTrust_none() {
    var factory = new TspWorkload.Factory();
    assertTrue(
        factory
            .notes(Params.resolve("tsp", factory.params(), Map.of("target", "http://127.0.0.1:1/")))
            .get(0)
            .contains("tokens not verified"));
    assertEquals(
        List.of(),
        factory.notes(
            Params.resolve(
                "tsp",
                factory.params(),
                Map.of("target", "http://127.0.0.1:1/", "trust", rootPem))));
  }

  @Test
  void problems_badTrustFilePolicyOrUrl_eachNamed() throws Exception {
    var factory = new TspWorkload.Factory();
    Path notPem = tmp.resolve("not.pem");
    java.nio.file.Files.writeString(notPem, "hello");
    List<String> problems =
        factory.problems(
            Params.resolve(
                "tsp",
                factory.params(),
                Map.of("target", "ftp://x/", "trust", notPem.toString(), "policy", "not-an-oid")),
            "software");
    assertEquals(3, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith("--target ftp://x/"), problems.toString());
    assertTrue(problems.get(1).startsWith("-p trust=" + notPem), problems.toString());
    assertTrue(problems.get(2).startsWith("-p policy=not-an-oid"), problems.toString());
    // whether it answers is asked by one real operation before the run (RunPreCheckTest); the
    // factory names what it calls
    assertEquals(
        List.of("--target http://127.0.0.1:1/tsa"),
        factory.services(
            Params.resolve("tsp", factory.params(), Map.of("target", "http://127.0.0.1:1/tsa"))));
  }
}
