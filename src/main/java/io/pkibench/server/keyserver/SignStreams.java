package io.pkibench.server.keyserver;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.pkibench.keyserver.protocol.Outbox;
import io.pkibench.keyserver.protocol.v2.KeyServerGrpc;
import io.pkibench.keyserver.protocol.v2.SignBatch;
import io.pkibench.keyserver.protocol.v2.SignCall;
import io.pkibench.keyserver.protocol.v2.SignResult;
import io.pkibench.keyserver.protocol.v2.SignResults;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Contract v2's SignStream: the signatures of one stream are made as their messages arrive, a message's calls in runs
 * ({@link #chunks}), each run on one of the node's workers while one is free, and the first run on the thread that read
 * the message when none is; each run is answered together, in one message when it fits. The caller is the stream's
 * (its connection's certificate, read once), and each request is signed, refused or failed exactly as v1's Sign would,
 * through the same {@link KeyService}. What one stream makes the node hold is bounded as v1 bounds a connection: at most
 * {@code maxBytesInFlight} of requests being signed (calls per connection × request size); a request past that is
 * refused RESOURCE_EXHAUSTED. A client streams only small requests (digests), so that takes thousands in flight.
 */
final class SignStreams extends KeyServerGrpc.KeyServerImplBase {
  /** Contract v2's service (signatures pipelined on one stream), served beside v1's. */
  static final String SERVICE = KeyServerGrpc.SERVICE_NAME;
  /** A message's answers at most, in bytes: about 240 RSA-2048 signatures (a client takes messages up to 4 MiB). */
  static final int MOST_BYTES_PER_MESSAGE = 64 * 1024;

  /**
   * Calls one thread signs before another takes the rest of a message. Handing calls to a worker costs a wake-up and a
   * switch on each side and then a second hand-off of the answers back to the transport thread, per run rather than
   * per call: a message of fewer than twice this many calls is one run, and a larger one is spread over up to
   * {@code threads} threads (the node's cores) in runs of at least this many.
   */
  static final int CALLS_PER_HOP = 4;

  private final KeyService service;
  private final Executor workers;
  private final int threads;
  private final long maxBytesInFlight;
  /** Runs handed to the workers and not yet signed, over every stream of the node. */
  private final AtomicInteger runsOnWorkers = new AtomicInteger();

  SignStreams(KeyService service, Executor workers, int threads, long maxBytesInFlight) {
    this.service = service;
    this.workers = workers;
    this.threads = threads;
    this.maxBytesInFlight = maxBytesInFlight;
  }

  @Override
  public StreamObserver<SignBatch> signStream(StreamObserver<SignResults> responses) {
    X509Certificate caller = KeyService.CALLER.get();
    var out = (ServerCallStreamObserver<SignResults>) responses;
    AtomicInteger inFlight = new AtomicInteger();
    AtomicLong bytesInFlight = new AtomicLong();
    Object closing = new Object();
    boolean[] halfClosed = {false}; // guarded by closing
    boolean[] done = {false}; // guarded by closing: the answer stream was closed (or the call cancelled)
    Outbox<SignResult> answers = new Outbox<>(MOST_BYTES_PER_MESSAGE, result -> result.getSerializedSize() + 3, batch -> {
      synchronized (closing) {
        if (!done[0]) out.onNext(SignResults.newBuilder().addAllResults(batch).build());
      }
    });
    out.setOnCancelHandler(() -> {
      synchronized (closing) {
        done[0] = true;
      }
    });
    Runnable finishIfDrained = () -> {
      synchronized (closing) {
        if (halfClosed[0] && inFlight.get() == 0 && !done[0]) {
          done[0] = true;
          out.onCompleted();
        }
      }
    };
    return new StreamObserver<>() {
      @Override
      public void onNext(SignBatch batch) {
        List<SignCall> admitted = new ArrayList<>(batch.getCallsCount());
        for (SignCall call : batch.getCallsList()) {
          long size = call.getRequest().getSerializedSize();
          if (bytesInFlight.addAndGet(size) > maxBytesInFlight) {
            bytesInFlight.addAndGet(-size);
            answers.add(refused(call.getId(), Status.RESOURCE_EXHAUSTED.withDescription(
                "more than " + maxBytesInFlight + " bytes of requests in flight on one stream; wait for answers before sending more")));
            continue;
          }
          inFlight.incrementAndGet();
          admitted.add(call);
        }
        List<List<SignCall>> chunks = chunks(admitted, threads);
        // Each run to a worker while one is free, so that a deep pipeline on one connection keeps every core busy;
        // once every worker has a run, another would only queue behind them, so this thread signs the first run itself,
        // while they sign theirs: that run costs no hop to a worker and back, and its answers leave with the next flush.
        boolean here = !chunks.isEmpty() && runsOnWorkers.get() >= threads;
        for (List<SignCall> chunk : here ? chunks.subList(1, chunks.size()) : chunks) {
          runsOnWorkers.incrementAndGet();
          try {
            workers.execute(() -> {
              try {
                sign(chunk);
              } finally {
                runsOnWorkers.decrementAndGet();
              }
            });
          } catch (RejectedExecutionException stopping) {
            runsOnWorkers.decrementAndGet();
            List<SignResult> unavailable = new ArrayList<>();
            for (SignCall call : chunk) unavailable.add(refused(call.getId(), Status.UNAVAILABLE.withDescription("the key server is stopping")));
            done(chunk, unavailable);
          }
        }
        if (here) sign(chunks.get(0));
      }

      /** Signs {@code calls} in turn and answers them together. */
      private void sign(List<SignCall> calls) {
        List<SignResult> results = new ArrayList<>(calls.size());
        for (SignCall call : calls) {
          KeyService.Signed signed = service.signFor(caller, call.getRequest());
          results.add(signed.status().isOk()
              ? SignResult.newBuilder().setId(call.getId()).setSignature(UnsafeByteOperations.unsafeWrap(signed.signature())).build()
              : refused(call.getId(), signed.status()));
        }
        done(calls, results);
      }

      private void done(List<SignCall> calls, List<SignResult> results) {
        answers.addAll(results);
        for (SignCall call : calls) bytesInFlight.addAndGet(-call.getRequest().getSerializedSize());
        inFlight.addAndGet(-calls.size());
        finishIfDrained.run();
      }

      @Override
      public void onError(Throwable t) {
        synchronized (closing) {
          done[0] = true; // the client went away: what is still being signed is answered to no one
        }
      }

      @Override
      public void onCompleted() {
        synchronized (closing) {
          halfClosed[0] = true;
        }
        finishIfDrained.run();
      }
    };
  }

  /**
   * {@code calls} cut into at most {@code threads} runs of at least {@link #CALLS_PER_HOP} calls (one run when there
   * are fewer), in order, their lengths differing by one at most: what one message's calls are signed in, each run by
   * one thread.
   */
  static List<List<SignCall>> chunks(List<SignCall> calls, int threads) {
    int n = Math.max(1, Math.min(threads, calls.size() / CALLS_PER_HOP));
    List<List<SignCall>> chunks = new ArrayList<>(n);
    for (int i = 0, from = 0; i < n && from < calls.size(); i++) {
      int to = from + (calls.size() - from + (n - i) - 1) / (n - i);
      chunks.add(calls.subList(from, to));
      from = to;
    }
    return chunks;
  }

  private static SignResult refused(long id, Status status) {
    return SignResult.newBuilder().setId(id).setStatus(status.getCode().value())
        .setMessage(status.getDescription() == null ? "" : status.getDescription()).build();
  }
}
