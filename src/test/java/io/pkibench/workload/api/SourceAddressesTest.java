package io.pkibench.workload.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SourceAddressesTest {
  @Test
  void forWorker_rangeOrList_dealtRoundRobin() {
    SourceAddresses range = SourceAddresses.parse("127.0.0.254-127.0.1.1");
    assertEquals(4, range.count("127.0.0.1"));
    List<String> dealt =
        java.util.stream.IntStream.range(0, 5)
            .mapToObj(w -> range.forWorker(w, 28_000, true).getHostAddress())
            .toList();
    assertEquals(
        List.of("127.0.0.254", "127.0.0.255", "127.0.1.0", "127.0.1.1", "127.0.0.254"), dealt);
    SourceAddresses list = SourceAddresses.parse("127.0.0.3, 127.0.0.7");
    assertEquals("127.0.0.7", list.forWorker(1, 28_000, true).getHostAddress());
  }

  @Test
  void forWorker_auto_theKernelsChoiceUntilOneAddressesPortsAreUsed() {
    SourceAddresses auto = SourceAddresses.parse("auto");
    assertNull(auto.forWorker(27_999, 28_000, true));
    assertEquals("127.0.0.2", auto.forWorker(28_000, 28_000, true).getHostAddress());
    assertEquals("127.0.0.4", auto.forWorker(3 * 28_000 + 5, 28_000, true).getHostAddress());
    assertNull(auto.forWorker(90_000, 28_000, false), "off loopback the kernel chooses");
    assertEquals(1, auto.count("10.1.1.1"));
    assertTrue(auto.count("127.0.0.1") > 1_000_000);
  }

  @Test
  void parse_malformed_refusedSayingWhatToWrite() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> SourceAddresses.parse("127.0.0.300"))
            .getMessage()
            .contains("not an IPv4 address"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> SourceAddresses.parse("localhost"))
            .getMessage()
            .contains("not an IPv4 address"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> SourceAddresses.parse("127.0.0.5-127.0.0.1"))
            .getMessage()
            .contains("ends before it starts"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> SourceAddresses.parse("127.0.0.0-127.2.0.0"))
            .getMessage()
            .contains("at most 65536"));
    assertEquals(
        List.of(
            "-p source-addresses 127.0.0.1: 127.0.0.1 is on loopback and the target 10.0.0.1 is not: its answers could not come back;"
                + " leave -p source-addresses out"),
        SourceAddresses.problems("-p source-addresses", "127.0.0.1", "10.0.0.1"));
    assertEquals(
        List.of(),
        SourceAddresses.problems("--source-addresses", "127.0.0.1-127.0.0.16", "127.0.0.1"));
  }
}
