package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.server.pebble.PebbleFixture;
import io.pkibench.server.pebble.PebbleServer;
import io.pkibench.testing.ReservedPorts;
import io.pkibench.testing.TestKeys;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * acme:order -p challenge=http-01 against Debian's Pebble validating for real (no
 * PEBBLE_VA_ALWAYS_VALID, every name resolved to 127.0.0.1 by pebble-challtestsrv): Pebble fetches
 * each key authorization from pkibench's own listener, and an order whose listener answers a wrong
 * one is counted failed with Pebble's reason.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AcmeHttp01Test {
  @TempDir static Path dir;
  static TestKeys keys;
  static PebbleServer pebble;
  static int httpPort;

  @BeforeAll
  static void startPebble() throws Exception {
    keys = TestKeys.in(dir);
    httpPort = ReservedPorts.one();
    pebble = PebbleFixture.start(dir.resolve("pebble"), keys.pki, httpPort);
  }

  @AfterAll
  static void stopPebble() {
    if (pebble != null) pebble.close();
  }

  @Test
  void http01_pebbleFetchesTheKeyAuthorization_ordersIssuedAndVerified() throws Exception {
    try (AcmeOrderWorkload w =
        (AcmeOrderWorkload)
            AcmeTestWorkloads.create(
                AcmeWorkloads.Kind.ORDER,
                pebble,
                keys.pki,
                pebble.directoryUrl(),
                Map.of("challenge", "http-01", "http-port", Integer.toString(httpPort)))) {
      var operation = w.newOperation(0);
      for (int i = 0; i < 3; i++) operation.execute();
      Map<String, Long> outcomes = w.outcomes();
      assertEquals(3L, outcomes.get("orders issued"), outcomes.toString());
      assertEquals(List.of(), w.ledger().problems());
      // Pebble fetched each token from the listener: not passed by an always-valid setting
      assertTrue(outcomes.get("http-01 tokens served") >= 3, outcomes.toString());
      // and Pebble's own log says it validated each over HTTP (from 3 perspectives, in Pebble 2.4)
      String log = Files.readString(dir.resolve("pebble").resolve("pebble.log"));
      assertTrue(count(log, "Attempting to validate w/ HTTP: http://w0-") >= 3, log);
      assertEquals(3, count(log, "set VALID by completed challenge"), log);
    }
  }

  @Test
  void http01_renewals_validatedOrReusedAndIssued() throws Exception {
    try (AcmeOrderWorkload w =
        (AcmeOrderWorkload)
            AcmeTestWorkloads.create(
                AcmeWorkloads.Kind.RENEW,
                pebble,
                keys.pki,
                pebble.directoryUrl(),
                Map.of("challenge", "http-01", "http-port", Integer.toString(httpPort)))) {
      var operation = w.newOperation(1);
      for (int i = 0; i < 3; i++) operation.execute();
      Map<String, Long> outcomes = w.outcomes();
      assertEquals(3L, outcomes.get("orders issued"), outcomes.toString());
      // the first order's authorization at least was validated over http-01 (Pebble may reuse it)
      assertTrue(outcomes.get("http-01 tokens served") >= 1, outcomes.toString());
    }
  }

  @Test
  void http01_listenerAnswersAWrongKeyAuthorization_orderFailedWithPebblesReason()
      throws Exception {
    Http01Listener listener = new Http01Listener(httpPort);
    Http01Answers wrong =
        new Http01Answers() {
          @Override
          public void offer(String token, String keyAuthorization) {
            listener.offer(token, keyAuthorization + "-not-it");
          }

          @Override
          public void withdraw(String token) {
            listener.withdraw(token);
          }

          @Override
          public void close() {
            listener.close();
          }
        };
    try (AcmeOrderWorkload w = workload(wrong)) {
      var operation = w.newOperation(0);
      for (int i = 0; i < 2; i++) {
        Exception e = assertThrows(Exception.class, operation::execute);
        assertTrue(e.getMessage().contains("challenge invalid: unauthorized"), e.getMessage());
      }
      Map<String, Long> outcomes = w.outcomes();
      assertEquals(0L, outcomes.get("orders issued"), outcomes.toString());
      assertEquals(2L, outcomes.get("orders failed"), outcomes.toString());
      assertEquals(List.of(), w.ledger().problems(), "failed orders are accounted for");
      assertTrue(
          outcomes.keySet().stream()
              .anyMatch(
                  k ->
                      k.startsWith("failed: challenge invalid: unauthorized")
                          && k.contains("key authorization")),
          "one reason, Pebble's, counted for both: " + outcomes);
    }
  }

  @Test
  void listener_getOnlyAndItsOwnTokensOnly() throws Exception {
    int port = ReservedPorts.one();
    try (Http01Listener listener = new Http01Listener(port);
        HttpClient client = HttpClient.newHttpClient()) {
      listener.offer("tok", "tok.thumb");
      String base = "http://127.0.0.1:" + port + Http01Listener.PATH;
      assertEquals("tok.thumb", get(client, base + "tok").body());
      assertEquals(404, get(client, base + "other").statusCode());
      assertEquals(404, get(client, "http://127.0.0.1:" + port + "/tok").statusCode());
      HttpResponse<String> post =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "tok"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(405, post.statusCode());
      listener.withdraw("tok");
      assertEquals(404, get(client, base + "tok").statusCode());
      var e = assertThrows(Exception.class, () -> new Http01Listener(port).close());
      assertTrue(e.getMessage().contains("-p http-port=" + port), e.getMessage());
    }
  }

  @Test
  void servePebbleFlags_http01PortClashingOrNoChalltestsrv_refusedNamingTheFix() {
    String clash =
        String.join(
            "\n", PebbleServer.problems(14000, 14002, PebbleServer.require(System.getenv())));
    assertTrue(clash.contains("--http-port 14002: give a free port"), clash);
    String missing = String.join("\n", PebbleServer.problems(14000, 5002, dir.resolve("pebble")));
    assertTrue(
        missing.contains("--challenge http-01: ") && missing.contains("pebble-challtestsrv"),
        missing);
    assertEquals(List.of(), PebbleServer.problems(14000, 0, dir.resolve("pebble")));
  }

  private static long count(String text, String what) {
    return text.lines().filter(l -> l.contains(what)).count();
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static AcmeOrderWorkload workload(Http01Answers answers) throws Exception {
    List<KeyPair> pool = AcmeOrderWorkload.keyPool("ecdsa-p256", 2);
    return new AcmeOrderWorkload(
        AcmeOrderWorkload.Mode.ORDER,
        pebble.directoryUrl(),
        io.pkibench.keys.TlsContexts.trusting(keys.pki.certificate("root-ca")),
        null,
        pool,
        PresignedEcdsa.make(200),
        null,
        0,
        InstantSource.system(),
        answers,
        true);
  }
}
