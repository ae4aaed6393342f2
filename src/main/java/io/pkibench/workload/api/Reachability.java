package io.pkibench.workload.api;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Optional;

/**
 * Whether a service's URL answers a TCP connection now: checked before a run begins, so that a wrong
 * address stops it at once, named, instead of filling every level with refused connections.
 */
public final class Reachability {
  static final int TIMEOUT_MILLIS = 3_000;

  private Reachability() {}

  /** Empty when {@code url} can be connected to; else "FLAG URL: cannot be reached (why); FIX". */
  public static Optional<String> problem(String flag, String url, String fix) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      return Optional.of(flag + " " + url + ": not a URL (" + e.getMessage() + ")");
    }
    if (uri.getHost() == null) return Optional.of(flag + " " + url + ": give a URL with a host, e.g. http://127.0.0.1:18318/tsa");
    int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(uri.getHost(), port), TIMEOUT_MILLIS);
      return Optional.empty();
    } catch (IOException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      return Optional.of(flag + " " + url + ": cannot be reached (" + why + "); " + fix);
    }
  }
}
