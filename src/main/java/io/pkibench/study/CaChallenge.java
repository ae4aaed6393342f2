package io.pkibench.study;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

/**
 * {@code study ca --challenge http-01}: the Pebble the study starts validates each order's http-01
 * challenge for real (no PEBBLE_VA_ALWAYS_VALID), fetching it from the listener acme:order starts
 * on a loopback port chosen once here; {@code serve pebble} is told that port, the workloads listen
 * on it. Without it ({@link #ALWAYS_VALID}), Pebble passes every challenge, for load.
 */
final class CaChallenge {
  static final String ALWAYS_VALID = "always-valid";
  static final String HTTP_01 = "http-01";

  private final boolean http01;
  private int port;

  CaChallenge(boolean http01) {
    this.http01 = http01;
  }

  boolean http01() {
    return http01;
  }

  /** {@code --challenge http-01} names a Pebble the study starts, or it means nothing. */
  List<String> problems(List<CaStudy.Service> services) {
    if (!http01 || services.stream().anyMatch(s -> s.kind().equals(CaStudy.PEBBLE)))
      return List.of();
    return List.of(
        "--challenge http-01: the Pebble the study starts validates for real; --service names no pebble (a CA elsewhere"
            + " validates as it is set to: run acme:order -p challenge=http-01 -p http-port=N against it); add pebble or"
            + " leave --challenge out");
  }

  /** {@code serve pebble}'s flags for it. */
  List<String> serveArgs() {
    return http01
        ? List.of("--challenge", HTTP_01, "--http-port", Integer.toString(port()))
        : List.of();
  }

  /** The acme: workloads' parameters for it, against the Pebble the study started. */
  Map<String, String> params() {
    return http01 ? Map.of("challenge", HTTP_01, "http-port", Integer.toString(port())) : Map.of();
  }

  /**
   * A loopback port free when first asked, the same for every step and for Pebble's restart after a
   * fault: the listener is each step's workload's, one step at a time.
   */
  private synchronized int port() {
    if (port == 0) {
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        port = s.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("no free loopback port for the http-01 listener", e);
      }
    }
    return port;
  }

  /** The pebble note's words for how it validates. */
  String pebbleValidation() {
    return http01
        ? "validating each order's http-01 challenge for real (no PEBBLE_VA_ALWAYS_VALID: pkibench serves each key"
            + " authorization on a loopback listener, every name resolved to 127.0.0.1 by pebble-challtestsrv; Pebble 2.4"
            + " fetches each from 3 perspectives, part of every order's authorize step)"
        : "validation always passing (PEBBLE_VA_ALWAYS_VALID)";
  }
}
