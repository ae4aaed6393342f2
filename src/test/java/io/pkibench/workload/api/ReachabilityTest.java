package io.pkibench.workload.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code serve}'s check of a service it will call: an HTTP request the service sees, never a
 * connection closed unused.
 */
@org.junit.jupiter.api.Timeout(value = 1, unit = java.util.concurrent.TimeUnit.MINUTES)
class ReachabilityTest {

  @Test
  void problem_httpServiceAnsweringAnyStatus_isReachedByARequestItSees() throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    AtomicInteger requests = new AtomicInteger();
    server.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          exchange.sendResponseHeaders(405, -1);
          exchange.close();
        });
    server.start();
    try {
      Optional<String> problem =
          Reachability.problem(
              "--tsa",
              "http://127.0.0.1:" + server.getAddress().getPort() + "/tsa",
              "start the TSA");
      assertEquals(Optional.empty(), problem);
      assertEquals(
          1, requests.get(), "the check was a request the service answered, not a bare connect");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void problem_nothingListening_namesTheUrlAndConnectionRefused() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    String problem =
        Reachability.problem("--tsa", "http://127.0.0.1:" + port + "/tsa", "start the TSA")
            .orElseThrow();
    assertTrue(
        problem.startsWith(
            "--tsa http://127.0.0.1:" + port + "/tsa: cannot be reached (connection refused"),
        problem);
  }
}
