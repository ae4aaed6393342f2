package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.server.pebble.PebbleFixture;
import io.pkibench.server.pebble.PebbleServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * acme:order against Debian's real Pebble on loopback: whole orders issued and verified apart from
 * Pebble, every accepted order accounted for; a proxy that swaps the downloaded certificate for
 * another (over another key, under another root) has every order counted failed.
 */
class AcmeOrderWorkloadTest {
  @TempDir static Path dir;
  static TestKeys keys;
  static PebbleServer pebble;

  @BeforeAll
  static void startPebble() throws Exception {
    keys = TestKeys.in(dir);
    pebble = PebbleFixture.start(dir.resolve("pebble"), keys.pki);
  }

  @AfterAll
  static void stopPebble() {
    if (pebble != null) pebble.close();
  }

  static AcmeOrderWorkload workload(String directory, Map<String, String> params) throws Exception {
    return (AcmeOrderWorkload)
        AcmeTestWorkloads.create(AcmeWorkloads.Kind.ORDER, pebble, keys.pki, directory, params);
  }

  @Test
  void order_againstPebble_everyOrderIssuedVerifiedAndAccounted() throws Exception {
    for (String alg : List.of("ecdsa-p256", "rsa2048")) {
      Path saved = dir.resolve("saved-" + alg);
      try (AcmeOrderWorkload w =
          workload(pebble.directoryUrl(), Map.of("alg", alg, "save", saved.toString()))) {
        MeasuredRun run =
            MeasuredRun.of("acme:order " + alg, w, Duration.ofSeconds(1)).assertEveryVerified();
        assertEquals(List.of(), w.ledger().problems(), alg + ": every order accounted for");
        Map<String, Long> outcomes = w.outcomes();
        assertEquals(outcomes.get("orders accepted"), outcomes.get("orders issued"), alg);
        assertTrue(outcomes.get("orders issued") >= run.succeeded(), alg + ": " + outcomes);
        assertEquals(0L, outcomes.get("serials issued twice"), alg);
        assertTrue(outcomes.containsKey("step finalize p99 µs"), alg + ": " + outcomes);
        try (var files = Files.list(saved)) {
          assertTrue(files.findAny().isPresent(), alg + ": issued certificates saved");
        }
      }
    }
  }

  /**
   * {@code -p serialize=new-order-and-authorization}: four workers' new orders and authorization
   * fetches reach Pebble one at a time (the overlap that deadlocks Pebble 2.4), counted by a proxy
   * that passes requests on in parallel; every order still issued.
   */
  @Test
  void serialized_fourWorkers_neverANewOrderBesideAnAuthorizationFetch() throws Exception {
    TestPki pki = keys.pki;
    SigningKey tls = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    try (CertificateSwappingProxy proxy =
            CertificateSwappingProxy.watching(
                TlsContexts.withIdentity(tls, pki.certificate("root-ca")),
                TlsContexts.trusting(pki.certificate("root-ca")),
                Integer.parseInt(
                    pebble.baseUrl().substring(pebble.baseUrl().lastIndexOf(':') + 1)));
        AcmeOrderWorkload w =
            workload(
                proxy.directoryUrl(),
                Map.of("serialize", AcmeWorkloads.SERIALIZED, "presigned", "1000"))) {
      List<Operation> operations = new ArrayList<>();
      for (int i = 0; i < 4; i++) operations.add(w.newOperation(i));
      List<Thread> threads = new ArrayList<>();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      for (Operation op : operations)
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (int n = 0; n < 25; n++) op.execute();
                      } catch (Throwable t) {
                        failed.compareAndSet(null, t);
                      }
                    }));
      for (Thread t : threads) t.join(60_000);
      assertEquals(null, failed.get(), "every order issued");
      assertEquals(100L, w.outcomes().get("orders issued"), w.outcomes().toString());
      assertEquals(1, proxy.mostAtOnce(), "new orders and authorization fetches one at a time");
    }
  }

  @Test
  void order_certificateSwappedByAProxy_everyOrderCountedFailed() throws Exception {
    TestPki pki = keys.pki;
    SigningKey tls = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    String other = TestPki.pem(tls.chain());
    try (CertificateSwappingProxy proxy =
            new CertificateSwappingProxy(
                TlsContexts.withIdentity(tls, pki.certificate("root-ca")),
                TlsContexts.trusting(pki.certificate("root-ca")),
                Integer.parseInt(pebble.baseUrl().substring(pebble.baseUrl().lastIndexOf(':') + 1)),
                other);
        AcmeOrderWorkload w = workload(proxy.directoryUrl(), Map.of())) {
      MeasuredRun.of("acme:order through a swapping proxy", w, Duration.ofSeconds(1))
          .assertEveryFailedWith("another key than the CSR's");
      Map<String, Long> outcomes = w.outcomes();
      assertEquals(0L, outcomes.get("orders issued"), outcomes.toString());
      assertEquals(outcomes.get("orders accepted"), outcomes.get("orders failed"));
      assertEquals(List.of(), w.ledger().problems(), "failed orders are accounted for too");
    }
  }

  /**
   * What one worker's orders ask Pebble, read from Pebble's own log: the directory once (the
   * library client used before fetched it again before every order, as Pebble sends no caching
   * headers), and each authorization once, to find its challenge, never polled (Pebble 2.4's
   * authorization handler is one side of the lock cycle that hangs it).
   */
  @Test
  void order_fiveOrdersOnOneWorker_directoryOnceAndNoAuthorizationPolled() throws Exception {
    Path log = dir.resolve("pebble").resolve("pebble.log");
    try (AcmeOrderWorkload w = workload(pebble.directoryUrl(), Map.of())) {
      var operation = w.newOperation(0);
      long dirBefore = requests(log, "GET /dir "), authzBefore = requests(log, "POST /authZ/ ");
      for (int i = 0; i < 5; i++) operation.execute();
      assertEquals(5L, w.outcomes().get("orders issued"), w.outcomes().toString());
      assertEquals(0L, requests(log, "GET /dir ") - dirBefore, "directory fetched again");
      assertEquals(5L, requests(log, "POST /authZ/ ") - authzBefore, "authorizations fetched");
    }
  }

  private static long requests(Path log, String request) throws Exception {
    try (var lines = Files.lines(log)) {
      return lines.filter(l -> l.contains(request)).count();
    }
  }

  @Test
  void catalog_knowsAcmeOrder() {
    assertTrue(WorkloadCatalog.builtIn().find("acme:order").isPresent());
  }
}
