package io.pkibench.workload.acme;

import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.io.IOException;
import java.security.KeyPair;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One revocation per operation (RFC 8555 §7.6, signed by the account key that got the certificate):
 * each worker's account gets {@code perWorker} certificates in its set-up, before and outside the
 * measured time, and each operation revokes the next of them; once all are revoked the worker's
 * operations fail saying so. {@code --verify}: the CA's answer is 200 and, unless told the CA does
 * not offer it, a second revoke of the same certificate is refused {@code alreadyRevoked} (which
 * proves the first took effect).
 */
final class AcmeRevokeWorkload implements Workload, CountedOutcomes {
  static final String ALREADY_REVOKED = "alreadyRevoked";

  /** The longest a worker's set-up may take getting its certificates: within the engine's grace. */
  static final Duration SETUP_LIMIT = Duration.ofSeconds(50);

  private final AcmeOrderWorkload orders;
  private final int perWorker;
  private final boolean secondRevoke;
  private final AtomicLong revoked = new AtomicLong();
  private final AtomicLong refusedAgain = new AtomicLong();

  AcmeRevokeWorkload(AcmeOrderWorkload orders, int perWorker, boolean secondRevoke) {
    this.orders = orders;
    this.perWorker = perWorker;
    this.secondRevoke = secondRevoke;
  }

  OrderLedger ledger() {
    return orders.ledger();
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    AcmeClient acme = orders.account();
    Deque<X509Certificate> held = new ArrayDeque<>();
    long deadline = System.nanoTime() + SETUP_LIMIT.toNanos();
    for (int i = 0; i < perWorker; i++) {
      if (System.nanoTime() > deadline)
        throw new IOException(
            "set-up: "
                + i
                + " of the "
                + perWorker
                + " certificates to revoke issued in "
                + SETUP_LIMIT.toSeconds()
                + " s; lower -p certificates");
      List<String> names = List.of(orders.name(worker, "revoke-" + i));
      KeyPair key = orders.key(worker, i);
      held.add(orders.issue(acme, names, key, c -> orders.checkNew(c, key, names)).get(0));
    }
    return (CheckedOperation) () -> revoke(acme, held);
  }

  /** One revocation; true when it was checked (under {@code --verify}) and passed. */
  private boolean revoke(AcmeClient acme, Deque<X509Certificate> held) throws Exception {
    X509Certificate certificate = held.poll();
    if (certificate == null)
      throw new IOException(
          "all "
              + perWorker
              + " certificates this worker got in set-up are revoked (-p certificates="
              + perWorker
              + "): raise it, or run shorter or slower");
    long t0 = System.nanoTime();
    int status = send(acme, certificate);
    orders.steps().record("revoke", System.nanoTime() - t0);
    if (!orders.verifies()) {
      revoked.incrementAndGet();
      return false;
    }
    String serial = certificate.getSerialNumber().toString(16);
    if (status != 200)
      throw new CertificateException(
          "the CA answered the revocation of serial " + serial + " with " + status + ", not 200");
    revoked.incrementAndGet();
    if (!secondRevoke) return true;
    int again;
    try {
      again = send(acme, certificate);
    } catch (AcmeProblem e) {
      if (!e.is(ALREADY_REVOKED))
        throw new CertificateException(
            "a second revoke of serial "
                + serial
                + " was refused, not alreadyRevoked: "
                + e.getMessage());
      refusedAgain.incrementAndGet();
      return true;
    }
    throw new CertificateException(
        "a second revoke of serial "
            + serial
            + " was answered "
            + again
            + ", not refused alreadyRevoked: the first did not take effect");
  }

  /** A revokeCert request for {@code certificate}, signed by the account's key: the CA's status. */
  static int send(AcmeClient acme, X509Certificate certificate) throws Exception {
    String der = Base64.getUrlEncoder().withoutPadding().encodeToString(certificate.getEncoded());
    return acme.post(acme.directory().revokeCert(), "{\"certificate\":\"" + der + "\"}").status();
  }

  @Override
  public Map<String, Long> outcomes() {
    Map<String, Long> out = new TreeMap<>(orders.outcomes());
    out.put("certificates revoked", revoked.get());
    out.put("second revokes refused alreadyRevoked", refusedAgain.get());
    return out;
  }

  @Override
  public void close() {
    orders.close();
  }
}
