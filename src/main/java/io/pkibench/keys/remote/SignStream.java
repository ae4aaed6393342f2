package io.pkibench.keys.remote;

import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.pkibench.keyserver.protocol.Outbox;
import io.pkibench.keyserver.protocol.SignRequest;
import io.pkibench.keyserver.protocol.v2.KeyServerGrpc;
import io.pkibench.keyserver.protocol.v2.SignBatch;
import io.pkibench.keyserver.protocol.v2.SignCall;
import io.pkibench.keyserver.protocol.v2.SignResult;
import io.pkibench.keyserver.protocol.v2.SignResults;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One contract-v2 SignStream to a node: every signature the client has in flight to that node, each
 * under an id, the requests that queue up behind a send going in one message. Answers complete
 * their call's future on the thread that read them. When the stream ends (the node died, or does
 * not serve v2), every call in flight fails with its status and the stream is not used again; the
 * cluster opens another.
 */
final class SignStream implements StreamObserver<SignResults> {
  /**
   * A message's requests at most, in bytes: with the framing, under the smallest request a node can
   * be told to accept (--max-request 1k), so no node refuses a message, which would end the stream
   * with every call on it; about a dozen digest requests.
   */
  static final int MOST_BYTES_PER_MESSAGE = 900;

  /**
   * Requests larger than this go through v1 (PSS, Ed25519 and ML-DSA send the message itself, which
   * can be large).
   */
  static final int LARGEST_STREAMED_BYTES = 512;

  private final Map<Long, CompletableFuture<SignResult>> pending = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final StreamObserver<SignBatch> requests;
  private final Outbox<SignCall> outbox;
  private volatile Status ended;

  /** A stream of contract v2 on {@code channel}: one per node, every signature in flight on it. */
  SignStream(Channel channel) {
    this.requests = KeyServerGrpc.newStub(channel).signStream(this);
    // each call's size in the message: its own bytes and at most 3 of tag and length
    this.outbox =
        new Outbox<>(
            MOST_BYTES_PER_MESSAGE,
            call -> call.getSerializedSize() + 3,
            calls -> requests.onNext(SignBatch.newBuilder().addAllCalls(calls).build()));
  }

  /** A call in flight: its id, to forget it after a deadline, and its answer to come. */
  record Call(long id, CompletableFuture<SignResult> answer) {}

  Call send(SignRequest request) {
    long id = ids.incrementAndGet();
    CompletableFuture<SignResult> answer = new CompletableFuture<>();
    pending.put(id, answer);
    Status already =
        ended; // read after the put: an end that comes between fails this call through pending
    if (already != null) {
      pending.remove(id);
      answer.completeExceptionally(already.asRuntimeException());
      return new Call(id, answer);
    }
    try {
      outbox.add(SignCall.newBuilder().setId(id).setRequest(request).build());
    } catch (RuntimeException broken) {
      end(Status.fromThrowable(broken));
    }
    return new Call(id, answer);
  }

  /** A call whose deadline passed: its answer, if it ever comes, is dropped. */
  void forget(long id) {
    pending.remove(id);
  }

  boolean open() {
    return ended == null;
  }

  /** Half-closes the stream: the node answers what it has, then ends it. */
  void close() {
    if (ended != null) return;
    try {
      requests.onCompleted();
    } catch (RuntimeException alreadyEnded) {
      end(Status.fromThrowable(alreadyEnded));
    }
  }

  @Override
  public void onNext(SignResults results) {
    for (SignResult r : results.getResultsList()) {
      CompletableFuture<SignResult> answer = pending.remove(r.getId());
      if (answer != null) answer.complete(r);
    }
  }

  @Override
  public void onError(Throwable t) {
    end(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    end(Status.UNAVAILABLE.withDescription("the node ended the signature stream"));
  }

  private void end(Status why) {
    ended = why;
    for (Long id : pending.keySet()) {
      CompletableFuture<SignResult> answer = pending.remove(id);
      if (answer != null) answer.completeExceptionally(new StatusRuntimeException(why));
    }
  }
}
