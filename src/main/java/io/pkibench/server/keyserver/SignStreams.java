package io.pkibench.server.keyserver;

import com.google.protobuf.ByteString;
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
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Contract v2's SignStream: the signatures of one stream are made on the node's worker pool as they arrive, in
 * parallel, each answered when done; answers that are done together go in one message. The caller is the stream's
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

  private final KeyService service;
  private final Executor workers;
  private final long maxBytesInFlight;

  SignStreams(KeyService service, Executor workers, long maxBytesInFlight) {
    this.service = service;
    this.workers = workers;
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
        for (SignCall call : batch.getCallsList()) {
          long size = call.getRequest().getSerializedSize();
          if (bytesInFlight.addAndGet(size) > maxBytesInFlight) {
            bytesInFlight.addAndGet(-size);
            answers.add(refused(call.getId(), Status.RESOURCE_EXHAUSTED.withDescription(
                "more than " + maxBytesInFlight + " bytes of requests in flight on one stream; wait for answers before sending more")));
            continue;
          }
          inFlight.incrementAndGet();
          try {
            workers.execute(() -> {
              KeyService.Signed signed = service.signFor(caller, call.getRequest());
              answers.add(signed.status().isOk()
                  ? SignResult.newBuilder().setId(call.getId()).setSignature(ByteString.copyFrom(signed.signature())).build()
                  : refused(call.getId(), signed.status()));
              bytesInFlight.addAndGet(-size);
              inFlight.decrementAndGet();
              finishIfDrained.run();
            });
          } catch (RejectedExecutionException stopping) {
            inFlight.decrementAndGet();
            bytesInFlight.addAndGet(-size);
            answers.add(refused(call.getId(), Status.UNAVAILABLE.withDescription("the key server is stopping")));
          }
        }
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

  private static SignResult refused(long id, Status status) {
    return SignResult.newBuilder().setId(id).setStatus(status.getCode().value())
        .setMessage(status.getDescription() == null ? "" : status.getDescription()).build();
  }
}
