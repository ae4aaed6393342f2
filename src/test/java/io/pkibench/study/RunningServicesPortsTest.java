package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.server.LoopbackPort;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunningServicesPortsTest {
  @Test
  void servicesPorts_areBelowTheEphemeralRange_andTheirSpansApart() throws Exception {
    List<ServiceSpec> specs = new ArrayList<>();
    for (int i = 0; i < 12; i++) specs.add(new ServiceSpec("s" + i, List.of("serve"), "https"));
    RunningServices services = RunningServices.plan(specs, List.of("java"), Map.of(), line -> {});
    List<Integer> ports = new ArrayList<>();
    for (String name : services.names()) ports.add(URI.create(services.url(name)).getPort());
    int high = Math.min(LoopbackPort.ephemeralLow(), 32_768);
    for (int port : ports) {
      assertTrue(
          port >= LoopbackPort.LOWEST_DRAWN && port + RunningServices.PORTS_PER_SERVICE <= high,
          "a killed service's ports cannot be a client connection's: " + ports);
      for (int other : ports)
        assertTrue(
            other == port || Math.abs(other - port) >= RunningServices.PORTS_PER_SERVICE,
            "spans apart: " + ports);
    }
  }
}
