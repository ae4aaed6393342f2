package io.pkibench.server.dss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.session.ForkedSeries;
import io.pkibench.study.ServiceProcess;
import io.pkibench.testing.TestKeys;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pkibench serve dss} in its own JVM: its ready line, DSS's endpoints where DSS publishes
 * them, its faults as answers.
 */
class ServeDssTest {
  @TempDir Path tmp;

  static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(120)
  void serveDss_ownJvm_publishesDssEndpoints_andAnswersItsFaults() throws Exception {
    TestKeys fixture = TestKeys.in(tmp);
    try (var dss =
        ServiceProcess.start(
            ForkedSeries.thisJvm(),
            List.of("serve", "dss", "--port", "0", "--pki", fixture.pki.dir().toString()),
            Map.of("PATH", System.getenv("PATH")))) {
      assertTrue(
          dss.url().matches("http://127\\.0\\.0\\.1:\\d+/services/rest"),
          "loopback, DSS's root: " + dss.url());
      assertTrue(dss.pid() != ProcessHandle.current().pid(), "its own JVM");
      String root = dss.url() + "/";

      HttpResponse<String> keys =
          send(HttpRequest.newBuilder(URI.create(root + "server-signing/keys")));
      assertEquals(200, keys.statusCode(), keys.body());
      JsonNode entries = new ObjectMapper().readTree(keys.body());
      assertEquals(
          10,
          entries.size(),
          "the test PKI's signer keys, the revoked one left out: " + keys.body());
      assertTrue(keys.body().contains("\"alias\":\"signer-rsa2048-1\""), keys.body());

      // DSS refuses a document it cannot read: a 500 with an incident id and DSS's own words, not a
      // stack trace
      HttpResponse<String> junk =
          send(
              HttpRequest.newBuilder(URI.create(root + "validation/validateSignature"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"signedDocument\":{\"bytes\":\"AAAA\",\"name\":\"x.bin\"}}")));
      assertEquals(500, junk.statusCode(), junk.body());
      JsonNode fault = new ObjectMapper().readTree(junk.body());
      assertTrue(
          fault.path("incident").asText().length() == 8
              && fault.path("message").asText().contains("not recognized"),
          junk.body());

      HttpResponse<String> cut =
          send(
              HttpRequest.newBuilder(URI.create(root + "signature/one-document/getDataToSign"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"toSignDocument\":")));
      assertEquals(400, cut.statusCode(), "a client's bad JSON is its error: " + cut.body());
    }
  }
}
