package io.pkibench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Await;
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

/**
 * A fault of ours in any handler: the client gets a 500 with an incident id, the log the same id
 * with the cause, and the server goes on.
 */
@org.junit.jupiter.api.Timeout(
    value = 2,
    unit = java.util.concurrent.TimeUnit.MINUTES) // talks to a server: a hang fails, said as one
class HttpEndpointsTest {
  /**
   * A service whose handlers fail as our own code might: an exception, a stack overflow, a failure
   * after the answer began.
   */
  static final class Faulty extends HttpEndpoints {
    Faulty() throws java.io.IOException {
      super("127.0.0.1", 0);
      route(
          "/npe",
          exchange -> {
            String missing = null;
            missing.length();
          });
      route("/deep", exchange -> recurse(0));
      route(
          "/late",
          exchange -> {
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write("partial".getBytes(StandardCharsets.UTF_8));
            throw new IllegalStateException("failed mid-answer");
          });
      route("/ok", exchange -> refuse(exchange, 200, "fine"));
      route(
          "/oom",
          exchange -> {
            throw new OutOfMemoryError(
                "Java heap space"); // as a request too large for what is left of the heap meets it
          });
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
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(500, r.statusCode(), path);
        Matcher id = Pattern.compile("internal error ([0-9a-f]+)").matcher(r.body());
        assertTrue(id.find(), path + ": " + r.body());
        assertFalse(
            r.body().contains("Exception")
                || r.body().contains("Error:")
                || r.body().contains("at io."),
            "no insides in the reply: " + r.body());
        String incident = id.group(1);
        assertTrue(
            log.stream()
                .anyMatch(
                    l ->
                        l.contains(incident)
                            && l.contains(path)
                            && (l.contains("NullPointerException")
                                || l.contains("StackOverflowError"))),
            "logged with the cause: " + log);
      }
      // The status was sent before the fault: the answer had begun, so the connection is cut rather
      // than
      // ended as if the answer were whole; the client must see an error, never a complete-looking
      // "partial".
      assertThrows(
          java.io.IOException.class,
          () ->
              http.send(
                  HttpRequest.newBuilder(URI.create(server.baseUrl() + "/late")).GET().build(),
                  HttpResponse.BodyHandlers.ofString()),
          "an answer cut by a fault must not read as complete");
      assertTrue(
          log.stream().anyMatch(l -> l.contains("/late") && l.contains("failed mid-answer")),
          log.toString());
      assertEquals(
          200,
          http.send(
                  HttpRequest.newBuilder(URI.create(server.baseUrl() + "/ok")).GET().build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode(),
          "the server goes on");
    }
  }

  /**
   * The heap ran out while a request was handled: the client is answered 503 with Retry-After and
   * the connection closed (before, the error left the handler and the client waited unanswered
   * until its own timeout), the log says it, and the server goes on.
   */
  @Test
  void outOfMemory_inAHandler_answered503WithRetryAfterAndTheConnectionClosed_theServerGoesOn()
      throws Exception {
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    try (Faulty server = new Faulty()) {
      server.logTo(log::add);
      server.start();
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(server.baseUrl() + "/oom"))
                  .timeout(java.time.Duration.ofSeconds(20))
                  .POST(HttpRequest.BodyPublishers.ofString("x".repeat(100_000)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(503, r.statusCode(), r.body());
      assertTrue(r.headers().firstValue("Retry-After").isPresent(), r.headers().toString());
      assertEquals(
          "close",
          r.headers().firstValue("Connection").orElse(""),
          "the connection is not kept: " + r.headers());
      assertTrue(r.body().contains("memory"), r.body());
      assertTrue(
          log.stream().anyMatch(l -> l.contains("/oom") && l.contains("OutOfMemoryError")),
          "logged: " + log);
      assertEquals(
          200,
          http.send(
                  HttpRequest.newBuilder(URI.create(server.baseUrl() + "/ok")).GET().build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode(),
          "the server goes on");
    }
  }

  /**
   * A service holding at most 32 KB of request bodies at once, bodies up to 64 KB: it answers with
   * the length it read.
   */
  static final class Budgeted extends HttpEndpoints {
    Budgeted() throws java.io.IOException {
      super("127.0.0.1", 0, null, 32 * 1024);
      route(
          "/length",
          exchange -> {
            byte[] body = bodyUpTo(exchange, MAX_BODY_BYTES);
            refuse(
                exchange,
                body == null ? 413 : 200,
                body == null ? "over " + MAX_BODY_BYTES + " bytes" : body.length + " bytes");
          });
    }
  }

  /**
   * The bounds on a body, from the smallest: one larger than the handler takes is refused 413 by
   * the handler (read and dropped, not kept); one the handler would take but larger than the whole
   * budget is refused 413 naming the budget and the fix (a 503 would have the client retry for
   * ever); one within both is read, and the budget is whole again after.
   */
  @Test
  void bodies_overTheRouteLimitOrOverTheWholeBudget_refused413_withinBoth_readAndReleased()
      throws Exception {
    try (Budgeted server = new Budgeted()) {
      server.start();
      HttpClient http = HttpClient.newHttpClient();
      java.util.function.IntFunction<HttpResponse<String>> post =
          n -> {
            try {
              return http.send(
                  HttpRequest.newBuilder(URI.create(server.baseUrl() + "/length"))
                      .timeout(java.time.Duration.ofSeconds(20))
                      .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[n]))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
              throw new AssertionError(n + " bytes: " + e, e);
            }
          };
      HttpResponse<String> overRoute = post.apply(HttpEndpoints.MAX_BODY_BYTES + 1);
      assertEquals(413, overRoute.statusCode(), overRoute.body());
      HttpResponse<String> overBudget = post.apply(48 * 1024);
      assertEquals(413, overBudget.statusCode(), overBudget.body());
      assertTrue(
          overBudget.body().contains("at most 32768 bytes of request bodies at once")
              && overBudget.body().contains("-Xmx"),
          overBudget.body());
      HttpResponse<String> within = post.apply(16 * 1024);
      assertEquals(200, within.statusCode(), within.body());
      assertEquals("16384 bytes", within.body().strip());
      Await.until(
          java.time.Duration.ofSeconds(10),
          "the budget released",
          () -> server.bodyBytesInFlight() == 0);
      assertEquals(0, server.refusedOverBudget(), "nothing refused for want of room now");
    }
  }

  /**
   * A request line or headers too large are answered 414 or 431 (not dropped) up to the JDK's own
   * limits; past those (a 1 MB URI) the JDK closes the connection unanswered, and the server goes
   * on.
   */
  @Test
  void oversizedRequestLineOrHeaders_answered414Or431_andTheServerGoesOn() throws Exception {
    try (Faulty server = new Faulty()) {
      server.start();
      URI base = URI.create(server.baseUrl());
      String longUri = "/ok?q=" + "a".repeat(HttpEndpoints.MAX_URI_CHARS);
      assertEquals("414", statusOf(base, "GET " + longUri + " HTTP/1.1\r\nHost: x\r\n\r\n"));
      StringBuilder many = new StringBuilder("GET /ok HTTP/1.1\r\nHost: x\r\n");
      for (int i = 0; i < HttpEndpoints.MAX_HEADERS + 50; i++)
        many.append("X-H").append(i).append(": v\r\n");
      assertEquals("431", statusOf(base, many.append("\r\n").toString()));
      StringBuilder big = new StringBuilder("GET /ok HTTP/1.1\r\nHost: x\r\n");
      for (int i = 0; i < 40; i++)
        big.append("X-Big").append(i).append(": ").append("b".repeat(1024)).append("\r\n");
      assertEquals("431", statusOf(base, big.append("\r\n").toString()));
      assertEquals(
          "200",
          statusOf(base, "GET /ok HTTP/1.1\r\nHost: x\r\nX-One: " + "c".repeat(2048) + "\r\n\r\n"),
          "within the limits");

      assertEquals(
          "",
          statusOf(base, "GET /ok?q=" + "a".repeat(1 << 20) + " HTTP/1.1\r\nHost: x\r\n\r\n"),
          "past the JDK's: closed unanswered");
      assertEquals(
          "200", statusOf(base, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"), "the server goes on");
    }
  }

  /**
   * The status code of the server's answer to {@code request} sent as is, or "" when it closed
   * without one.
   */
  private static String statusOf(URI base, String request) throws Exception {
    try (var socket = new java.net.Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(10_000);
      try {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
      } catch (java.net.SocketException closedWhileSending) {
        // the server gave up on the request part way: look for an answer all the same
      }
      try {
        String line =
            new java.io.BufferedReader(
                    new java.io.InputStreamReader(
                        socket.getInputStream(), StandardCharsets.US_ASCII))
                .readLine();
        return line == null ? "" : line.split(" ")[1];
      } catch (java.net.SocketException reset) {
        return "";
      }
    }
  }
}
