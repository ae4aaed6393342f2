package io.pkibench.workload.dss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.pkibench.session.ForkedSeries;
import io.pkibench.study.ServiceProcess;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dss:* workloads (study restpki --service dss) count the answers they checked: against the
 * real DSS ({@code serve dss}, its own JVM) every answer is verified (ok = verified); behind a
 * loopback front that changes one base64 digit of the document (or bytes to sign) a request sends,
 * so DSS signs other bytes than the client sent, every operation is counted failed. Seen failing
 * before the dss workloads were CheckedOperations (verified 0 of 6).
 */
@Timeout(240)
class DssVerifiedTest {
  static final int OPERATIONS = 6;

  @TempDir static Path tmp;
  static TestKeys fixture;
  static ServiceProcess dss;
  static HttpServer front;
  static final AtomicBoolean tamper = new AtomicBoolean();

  @BeforeAll
  static void start() throws Exception {
    fixture = TestKeys.in(tmp);
    dss =
        ServiceProcess.start(
            ForkedSeries.thisJvm(),
            List.of("serve", "dss", "--port", "0", "--pki", fixture.pki.dir().toString()),
            Map.of("PATH", System.getenv("PATH")));
    URI root = URI.create(dss.url());
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    front = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    front.createContext(
        "/",
        exchange -> {
          try {
            forward(exchange, root, http);
          } catch (Exception e) {
            exchange.sendResponseHeaders(502, -1);
          } finally {
            exchange.close();
          }
        });
    front.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (front != null) front.stop(0);
    if (dss != null) dss.close();
  }

  /** DSS's answer to {@code exchange}'s request, its first bytes changed when {@link #tamper}. */
  static void forward(HttpExchange exchange, URI root, HttpClient http) throws Exception {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1);
    if (tamper.get()) body = otherBytes(body);
    String path = exchange.getRequestURI().getPath().substring("/services/rest".length());
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(root + path))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
    request =
        exchange.getRequestMethod().equals("POST")
            ? request.POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.ISO_8859_1))
            : request.GET();
    HttpResponse<byte[]> answer =
        http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(answer.statusCode(), answer.body().length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(answer.body());
    }
  }

  /**
   * The request with one base64 digit of its first {@code bytes} (the document, or the bytes to
   * sign) changed in its middle (random content, the PDF's image stream): DSS signs, or builds its
   * signature over, other bytes, and the document stays one DSS reads.
   */
  static String otherBytes(String body) {
    int at = body.indexOf("\"bytes\":\"");
    if (at < 0) return body;
    int from = at + "\"bytes\":\"".length();
    int digit = (from + body.indexOf('"', from)) / 2;
    char c = body.charAt(digit);
    return body.substring(0, digit) + (c == 'A' ? 'B' : 'A') + body.substring(digit + 1);
  }

  record Tally(int ok, int verified, int failed, List<String> errors) {}

  static Tally run(String workload) throws Exception {
    WorkloadFactory factory = WorkloadCatalog.builtIn().find(workload).orElseThrow();
    String target = "http://127.0.0.1:" + front.getAddress().getPort() + "/services/rest";
    int ok = 0, verified = 0, failed = 0;
    List<String> errors = new ArrayList<>();
    try (Workload w = fixture.workload(factory, Map.of("target", target))) {
      Operation op = w.newOperation(0);
      for (int i = 0; i < OPERATIONS; i++) {
        try {
          boolean checked = op instanceof CheckedOperation c && c.executeChecked();
          if (!(op instanceof CheckedOperation)) op.execute();
          ok++;
          if (checked) verified++;
        } catch (Exception e) {
          failed++;
          errors.add(String.valueOf(e.getMessage()));
        }
      }
    }
    return new Tally(ok, verified, failed, errors);
  }

  @Test
  void dssWorkloads_realDss_everyAnswerVerified_otherBytesSigned_everyOneFailed() throws Exception {
    for (String workload : List.of("dss:cades", "dss:pades", "dss:server-sign")) {
      tamper.set(false);
      assertEquals(
          new Tally(OPERATIONS, OPERATIONS, 0, List.of()),
          run(workload),
          workload + " on DSS as it is: each answer checked and counted verified");
      tamper.set(true);
      try {
        Tally planted = run(workload);
        assertEquals(0, planted.ok(), workload + " signing other bytes: " + planted);
        assertEquals(OPERATIONS, planted.failed(), workload + ": " + planted);
        assertTrue(
            planted.errors().stream().noneMatch(e -> e.contains("502") || e.contains("500")),
            "refused by the check, not by the front or DSS: " + planted.errors());
      } finally {
        tamper.set(false);
      }
    }
  }
}
