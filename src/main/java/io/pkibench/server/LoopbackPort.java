package io.pkibench.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Whether a server a reference server started (nginx, Pebble's DNS) listens yet: one connection
 * attempt on 127.0.0.1, for the starter's bounded wait to repeat.
 */
public final class LoopbackPort {
  private LoopbackPort() {}

  /** A connection to 127.0.0.1:{@code port} was taken within half a second. */
  public static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException notYet) {
      return false;
    }
  }
}
