package io.pkibench.session;

import io.pkibench.text.FailureCause;
import io.pkibench.text.OutsideText;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One real operation of a workload that calls an outside service, made before the run measures
 * anything: the workload is created as a worker's would be, asked once, and closed. A bare TCP
 * connect would say less (a port open is not a service that answers) and can break what it checks
 * (OpenSSL's OCSP responder waits on a connection that never sends a request and answers nobody
 * after it); one operation is what the run will send thousands of anyway.
 */
final class ServiceCheck {
  /**
   * How long the one operation may take: far beyond any service's answer, short enough that a hung
   * one is said soon.
   */
  static final Duration WITHIN = Duration.ofSeconds(30);

  /** What a failure to set a workload up says about the service itself. */
  private static final Set<FailureCause.Kind> UNREACHABLE =
      EnumSet.of(
          FailureCause.Kind.REFUSED,
          FailureCause.Kind.UNKNOWN_HOST,
          FailureCause.Kind.TIMED_OUT,
          FailureCause.Kind.TLS_UNTRUSTED,
          FailureCause.Kind.TLS);

  private ServiceCheck() {}

  /**
   * Empty when one operation of {@code factory} against {@code services} (the flags and URLs it
   * calls, e.g. "--target URL") succeeded ({@code answered} is told); else the one line that says
   * which service, what happened and what to do. A workload that cannot even be created is not the
   * service's fault: the run reports that as it always has, so the check passes it by, unless it
   * failed reaching the service (refused, unknown host, timed out, TLS), which is said as above.
   */
  static Optional<String> problem(
      WorkloadFactory factory,
      Params params,
      WorkloadContext context,
      String services,
      Duration within,
      Runnable answered) {
    Workload workload;
    Operation operation;
    long createdFromNanos = System.nanoTime();
    try {
      workload = factory.create(context, params);
    } catch (Exception e) {
      // a workload that asks the service while it is set up (openbao:* fetch the key's public
      // key) met the service already: when the service could not be reached, that is the answer
      FailureCause cause = FailureCause.of(e);
      return UNREACHABLE.contains(cause.kind())
          ? Optional.of(
              services + ": " + words(cause, (System.nanoTime() - createdFromNanos) / 1_000_000))
          : Optional.empty();
    }
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long startNanos = System.nanoTime();
    try {
      operation = workload.newOperation(0);
    } catch (Exception e) {
      closeQuietly(workload);
      return Optional.empty();
    }
    // On a thread of its own, so that an operation that never returns is stopped at the deadline
    // and said to have timed out.
    Thread asking =
        Thread.ofPlatform()
            .daemon()
            .name("pkibench-service-check")
            .start(
                () -> {
                  try {
                    operation.execute();
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                });
    boolean ended;
    try {
      ended = asking.join(within);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ended = false;
    }
    long tookMillis = (System.nanoTime() - startNanos) / 1_000_000;
    closeQuietly(workload); // also what unblocks an operation still waiting on its socket
    if (!ended) {
      asking.interrupt();
      return Optional.of(
          services
              + ": no answer within "
              + within.toSeconds()
              + " s (timed out); check that the service is up and answering,"
              + " or correct the URL");
    }
    Throwable t = failure.get();
    if (t != null) return Optional.of(services + ": " + words(FailureCause.of(t), tookMillis));
    answered.run();
    return Optional.empty();
  }

  /** What the one failed operation says about the service, and what to do, by its cause. */
  static String words(FailureCause cause, long tookMillis) {
    String sentence = OutsideText.forTerminal(cause.sentence());
    return switch (cause.kind()) {
      case REFUSED ->
          "nothing answers there (connection refused); start the service or correct the URL";
      case UNKNOWN_HOST -> "the host name is not known (" + sentence + "); correct the URL";
      case TIMED_OUT ->
          "no answer: timed out after "
              + String.format(Locale.ROOT, "%.1f", tookMillis / 1000.0)
              + " s ("
              + sentence
              + "); check that the service is up and answering, or correct the URL";
      case TLS_UNTRUSTED ->
          "its certificate is not trusted ("
              + sentence
              + "); give the CA that issued it with -p trust=FILE.pem";
      case TLS ->
          "the TLS handshake failed ("
              + sentence
              + "); check the URL's scheme and port (https/tls for TLS) and the TLS -p parameters";
      case RESET, CLOSED ->
          "the connection was dropped before an answer ("
              + sentence
              + "); check that the URL is the service's and that it is"
              + " healthy";
      case OTHER ->
          "one operation failed: "
              + sentence
              + "; check the URL's path and the workload's -p parameters";
    };
  }

  private static void closeQuietly(Workload workload) {
    try {
      workload.close();
    } catch (Exception ignored) {
      // the check's answer is already known; a workload that cannot close cleanly will say so in
      // the run proper
    }
  }
}
