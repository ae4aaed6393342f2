package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reliability accounting: a planted duplicate serial, a lost order, an order ended twice. */
class OrderLedgerTest {
  @Test
  void issued_sameSerialForTwoOrders_reportedAsIssuedTwice() {
    OrderLedger ledger = new OrderLedger();
    ledger.accepted("o1");
    ledger.accepted("o2");
    assertTrue(ledger.issued("o1", BigInteger.valueOf(0xabc)));
    assertFalse(ledger.issued("o2", BigInteger.valueOf(0xabc)), "the planted duplicate");
    assertEquals(1, ledger.problems().size(), ledger.problems().toString());
    assertTrue(ledger.problems().get(0).contains("serial abc issued twice"));
    assertEquals(1L, ledger.counts().get("serials issued twice"));
  }

  @Test
  void problems_acceptedOrderNeverEnded_reportedAsLost() {
    OrderLedger ledger = new OrderLedger();
    ledger.accepted("o1");
    ledger.accepted("o2");
    ledger.failed("o2", "order invalid");
    assertEquals(List.of("1 accepted order(s) neither issued nor failed"), ledger.problems());
    assertEquals(1L, ledger.counts().get("orders unaccounted"));
  }

  @Test
  void issued_orderEndedTwice_reported() {
    OrderLedger ledger = new OrderLedger();
    ledger.accepted("o1");
    ledger.issued("o1", BigInteger.ONE);
    ledger.failed("o1", "late");
    assertTrue(ledger.problems().get(0).contains("ended twice"), ledger.problems().toString());
  }

  @Test
  void problems_everyOrderIssuedOrFailedOnce_none() {
    OrderLedger ledger = new OrderLedger();
    ledger.accepted("o1");
    ledger.accepted("o2");
    ledger.issued("o1", BigInteger.ONE);
    ledger.failed("o2", "timeout");
    assertEquals(List.of(), ledger.problems());
    assertEquals(1L, ledger.counts().get("failed: timeout"));
  }
}
