package io.pkibench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoopbackPortTest {
  @Test
  void freeSpan_isBelowTheEphemeralRange_andEveryPortOfItBinds() throws Exception {
    int high = Math.min(LoopbackPort.ephemeralLow(), 32_768);
    for (int i = 0; i < 20; i++) {
      int base = LoopbackPort.freeSpan(16);
      assertTrue(base >= LoopbackPort.LOWEST_DRAWN, "at or above 20000: " + base);
      assertTrue(base + 15 < high, base + " to " + (base + 15) + " below " + high);
      List<ServerSocket> bound = new ArrayList<>();
      try {
        for (int port = base; port < base + 16; port++)
          bound.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
        assertEquals(16, bound.size());
      } finally {
        for (ServerSocket s : bound) s.close();
      }
    }
  }

  @Test
  void bindable_isFalse_whenAnyPortOfTheSpanIsListenedOn() throws Exception {
    int base = LoopbackPort.freeSpan(4);
    try (ServerSocket third = new ServerSocket(base + 2, 1, InetAddress.getLoopbackAddress())) {
      assertFalse(LoopbackPort.bindable(base, 4));
      assertTrue(LoopbackPort.bindable(base, 2));
      assertTrue(LoopbackPort.accepts(base + 2));
    }
    assertTrue(LoopbackPort.bindable(base, 4));
    assertFalse(LoopbackPort.accepts(base + 2));
  }
}
