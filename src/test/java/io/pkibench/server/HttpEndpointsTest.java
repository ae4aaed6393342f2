package io.pkibench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** A fault of ours in any handler: the client gets a 500 with an incident id, the log the same id with the cause, and the server goes on. */
class HttpEndpointsTest {
  /** A service whose handlers fail as our own code might: an exception, a stack overflow, a failure after the answer began. */
  static final class Faulty extends HttpEndpoints {
    Faulty() throws java.io.IOException {
      super("127.0.0.1", 0);
      route("/npe", exchange -> {
        String missing = null;
        missing.length();
      });
      route("/deep", exchange -> recurse(0));
      route("/late", exchange -> {
        exchange.sendResponseHeaders(200, 0);
        exchange.getResponseBody().write("partial".getBytes(StandardCharsets.UTF_8));
        throw new IllegalStateException("failed mid-answer");
      });
      route("/ok", exchange -> refuse(exchange, 200, "fine"));
    }

    static int recurse(int n) {
      return recurse(n + 1) + 1;
    }
  }

  @Test
  void anUnexpectedError_isAnswered500WithAnIncidentId_loggedWithItsCause() throws Exception {
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    try (Faulty server = new Faulty()) {
      server.logTo(log::add);
      server.start();
      HttpClient http = HttpClient.newHttpClient();
      for (String path : List.of("/npe", "/deep")) {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(500, r.statusCode(), path);
        Matcher id = Pattern.compile("internal error ([0-9a-f]+)").matcher(r.body());
        assertTrue(id.find(), path + ": " + r.body());
        assertFalse(r.body().contains("Exception") || r.body().contains("Error:") || r.body().contains("at io."), "no insides in the reply: " + r.body());
        String incident = id.group(1);
        assertTrue(log.stream().anyMatch(l -> l.contains(incident) && l.contains(path)
            && (l.contains("NullPointerException") || l.contains("StackOverflowError"))), "logged with the cause: " + log);
      }
      try {
        HttpResponse<String> late = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/late")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, late.statusCode(), "the status was sent before the fault");
      } catch (java.io.IOException e) {
        // the answer had begun: the connection ends early, which is all that can be done
      }
      assertTrue(log.stream().anyMatch(l -> l.contains("/late") && l.contains("failed mid-answer")), log.toString());
      assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/ok")).GET().build(), HttpResponse.BodyHandlers.ofString())
          .statusCode(), "the server goes on");
    }
  }
}
