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
 * Contract v2's SignStream: the signatures of one stream are made as their messages arrive, a
 * message's calls in runs ({@link #chunks}), each run on one of the node's workers while one is
 * free, and the first run on the thread that read the message when none is; each run is answered
 * together, in one message when it fits. The caller is the stream's (its connection's certificate,
 * read once), and each request is signed, refused or failed exactly as v1's Sign would, through the
 * same {@link KeyService}.
 *
 * <p>What one stream makes the node hold is bounded in calls as well as in bytes, since a call's
 * request can be a few bytes or none (a byte limit alone let a client that never read its answers
 * send calls without end):
 *
 * <ul>
 *   <li>a call without a request, or with an empty one, ends the stream INVALID_ARGUMENT; a message
 *       of more than {@link #MOST_CALLS_PER_MESSAGE} calls ends it RESOURCE_EXHAUSTED: no client of
 *       the contract sends either;
 *   <li>the node reads a stream's messages itself (no automatic read-ahead), the next only while at
 *       most {@code maxCallsPerStream − MOST_CALLS_PER_MESSAGE} of its calls are unanswered, so a
 *       stream never has more than {@code maxCallsPerStream} unanswered; a call is answered when
 *       its answer goes to the client, and answers go only while the client's flow control takes
 *       them ({@code isReady}): a client that does not read its answers is, after that many calls,
 *       not read from any more (HTTP/2 flow control then holds its further messages on its side);
 *   <li>at most {@code maxQueuedCalls} calls of every stream of the node wait for or are being
 *       signed; a call past that is answered RESOURCE_EXHAUSTED, as is a call past {@code
 *       maxBytesInFlight} bytes of requests being signed on its stream.
 * </ul>
 */
final class SignStreams extends KeyServerGrpc.KeyServerImplBase {
  /** Contract v2's service (signatures pipelined on one stream), served beside v1's. */
  static final String SERVICE = KeyServerGrpc.SERVICE_NAME;

  /**
   * A message's answers at most, in bytes: about 240 RSA-2048 signatures (a client takes messages
   * up to 4 MiB).
   */
  static final int MOST_BYTES_PER_MESSAGE = 64 * 1024;

  /**
   * Calls one message may carry: pkibench's client sends messages of at most 900 bytes, a few dozen
   * calls; a message of more is refused whole (the stream ends), since every call it carries is
   * admitted at once.
   */
  static final int MOST_CALLS_PER_MESSAGE = 256;

  /**
   * Calls one thread signs before another takes the rest of a message. Handing calls to a worker
   * costs a wake-up and a switch on each side and then a second hand-off of the answers back to the
   * transport thread, per run rather than per call: a message of fewer than twice this many calls
   * is one run, and a larger one is spread over up to {@code threads} threads (the node's cores) in
   * runs of at least this many.
   */
  static final int CALLS_PER_HOP = 4;

  private final KeyService service;
  private final Executor workers;
  private final int threads;
  private final long maxBytesInFlight;
  private final int maxCallsPerStream;
  private final int maxQueuedCalls;

  /** Runs handed to the workers and not yet signed, over every stream of the node. */
  private final AtomicInteger runsOnWorkers = new AtomicInteger();

  /** Calls of every stream waiting for or being signed, and the most there were at once. */
  private final AtomicInteger queued = new AtomicInteger(), mostQueued = new AtomicInteger();

  /**
   * The most unanswered calls any one stream had at once; streams not read now for want of room;
   * calls read.
   */
  private final AtomicInteger mostUnanswered = new AtomicInteger(), paused = new AtomicInteger();

  private final AtomicLong callsRead = new AtomicLong();

  SignStreams(
      KeyService service,
      Executor workers,
      int threads,
      long maxBytesInFlight,
      int maxCallsPerStream,
      int maxQueuedCalls) {
    this.service = service;
    this.workers = workers;
    this.threads = threads;
    this.maxBytesInFlight = maxBytesInFlight;
    this.maxCallsPerStream = maxCallsPerStream;
    this.maxQueuedCalls = maxQueuedCalls;
  }

  /** Calls read from every stream since start. */
  long callsRead() {
    return callsRead.get();
  }

  /**
   * Calls of every stream waiting for or being signed now, and the most at once since start (at
   * most maxQueuedCalls).
   */
  int queued() {
    return queued.get();
  }

  int mostQueued() {
    return mostQueued.get();
  }

  /** The most unanswered calls one stream had at once since start: at most maxCallsPerStream. */
  int mostUnansweredOnAStream() {
    return mostUnanswered.get();
  }

  /**
   * Streams the node does not read now because their unanswered calls leave no room for another
   * message.
   */
  int pausedStreams() {
    return paused.get();
  }

  @Override
  public StreamObserver<SignBatch> signStream(StreamObserver<SignResults> responses) {
    Stream stream =
        new Stream(KeyService.CALLER.get(), (ServerCallStreamObserver<SignResults>) responses);
    stream.readMore();
    return stream;
  }

  /**
   * One client's stream: its calls read as room allows, signed, and answered as its flow control
   * takes them.
   */
  private final class Stream implements StreamObserver<SignBatch> {
    private final X509Certificate caller;
    private final ServerCallStreamObserver<SignResults> out;
    private final Outbox<SignResult> answers;

    /**
     * Calls read and not yet answered (signing, queued or answered into a buffer the client has not
     * taken).
     */
    private final AtomicInteger unanswered = new AtomicInteger();

    private final AtomicLong bytesInFlight = new AtomicLong();
    // guarded by this: every call on out, and what decides them
    private boolean reading; // a message was asked for and has not come
    private boolean waiting; // not read for want of room: counted in paused
    private boolean halfClosed;
    private boolean done; // the answer stream was closed, or the call cancelled

    Stream(X509Certificate caller, ServerCallStreamObserver<SignResults> out) {
      this.caller = caller;
      this.out = out;
      this.answers =
          new Outbox<>(
              MOST_BYTES_PER_MESSAGE,
              result -> result.getSerializedSize() + 3,
              out::isReady,
              this::send);
      out.disableAutoRequest();
      out.setOnReadyHandler(answers::drain);
      out.setOnCancelHandler(() -> end(null));
    }

    private void send(List<SignResult> batch) {
      synchronized (this) {
        if (!done) out.onNext(SignResults.newBuilder().addAllResults(batch).build());
      }
      unanswered.addAndGet(-batch.size());
      readMore();
      finishIfDrained();
    }

    /**
     * Asks for the next message unless one is asked for already, the client is done sending, or
     * there is no room.
     */
    void readMore() {
      synchronized (this) {
        if (reading || halfClosed || done) return;
        boolean room = unanswered.get() <= maxCallsPerStream - MOST_CALLS_PER_MESSAGE;
        if (room == waiting) paused.addAndGet(room ? -1 : 1);
        waiting = !room;
        if (!room) return;
        reading = true;
        out.request(1);
      }
    }

    private void finishIfDrained() {
      synchronized (this) {
        if (halfClosed && unanswered.get() == 0 && !done) {
          end(null);
          out.onCompleted();
        }
      }
    }

    /**
     * No more reading or answering on this stream; {@code why} non-null: it is closed with that
     * status.
     */
    private synchronized void end(Status why) {
      if (done) return;
      done = true;
      if (waiting) paused.decrementAndGet();
      waiting = false;
      if (why != null) out.onError(why.asRuntimeException());
    }

    @Override
    public void onNext(SignBatch batch) {
      synchronized (this) {
        reading = false;
      }
      callsRead.addAndGet(batch.getCallsCount());
      if (batch.getCallsCount() > MOST_CALLS_PER_MESSAGE) {
        end(
            Status.RESOURCE_EXHAUSTED.withDescription(
                "a message of "
                    + batch.getCallsCount()
                    + " calls; send at most "
                    + MOST_CALLS_PER_MESSAGE
                    + " calls in one message"));
        return;
      }
      for (SignCall call : batch.getCallsList()) {
        // no request is no v1 request at all, and its zero bytes would escape the byte limit: the
        // client breaks the contract
        if (!call.hasRequest() || call.getRequest().getSerializedSize() == 0) {
          end(
              Status.INVALID_ARGUMENT.withDescription(
                  "call " + call.getId() + " has no request; every call carries a v1 SignRequest"));
          return;
        }
      }
      mostUnanswered.accumulateAndGet(unanswered.addAndGet(batch.getCallsCount()), Math::max);
      List<SignCall> admitted = new ArrayList<>(batch.getCallsCount());
      List<SignResult> refusals = new ArrayList<>();
      for (SignCall call : batch.getCallsList()) {
        long size = call.getRequest().getSerializedSize();
        if (bytesInFlight.addAndGet(size) > maxBytesInFlight) {
          bytesInFlight.addAndGet(-size);
          refusals.add(
              refused(
                  call.getId(),
                  Status.RESOURCE_EXHAUSTED.withDescription(
                      "more than "
                          + maxBytesInFlight
                          + " bytes of requests in flight on one stream; wait for answers before sending more")));
          continue;
        }
        int now = queued.incrementAndGet();
        if (now > maxQueuedCalls) {
          queued.decrementAndGet();
          bytesInFlight.addAndGet(-size);
          refusals.add(
              refused(
                  call.getId(),
                  Status.RESOURCE_EXHAUSTED.withDescription(
                      "the node has "
                          + maxQueuedCalls
                          + " calls waiting to be signed, its most; try again when answers come, or another node")));
          continue;
        }
        mostQueued.accumulateAndGet(now, Math::max);
        admitted.add(call);
      }
      if (!refusals.isEmpty()) answers.addAll(refusals);
      List<List<SignCall>> chunks = chunks(admitted, threads);
      // Each run to a worker while one is free, so that a deep pipeline on one connection keeps
      // every core busy;
      // once every worker has a run, another would only queue behind them, so this thread signs the
      // first run itself,
      // while they sign theirs: that run costs no hop to a worker and back, and its answers leave
      // with the next flush.
      boolean here = !chunks.isEmpty() && runsOnWorkers.get() >= threads;
      for (List<SignCall> chunk : here ? chunks.subList(1, chunks.size()) : chunks) {
        runsOnWorkers.incrementAndGet();
        try {
          workers.execute(
              () -> {
                try {
                  sign(chunk);
                } finally {
                  runsOnWorkers.decrementAndGet();
                }
              });
        } catch (RejectedExecutionException stopping) {
          runsOnWorkers.decrementAndGet();
          List<SignResult> unavailable = new ArrayList<>();
          for (SignCall call : chunk)
            unavailable.add(
                refused(
                    call.getId(),
                    Status.UNAVAILABLE.withDescription("the key server is stopping")));
          done(chunk, unavailable);
        }
      }
      if (here) sign(chunks.get(0));
      readMore();
    }

    /**
     * Signs {@code calls} in turn and answers them together; for a stream that has ended, signs
     * none.
     */
    private void sign(List<SignCall> calls) {
      List<SignResult> results = new ArrayList<>(calls.size());
      for (SignCall call : calls) {
        if (ended()) break; // its client is gone: no one to answer
        KeyService.Signed signed = service.signFor(caller, call.getRequest());
        results.add(
            signed.status().isOk()
                ? SignResult.newBuilder()
                    .setId(call.getId())
                    .setSignature(UnsafeByteOperations.unsafeWrap(signed.signature()))
                    .build()
                : refused(call.getId(), signed.status()));
      }
      done(calls, results);
    }

    private synchronized boolean ended() {
      return done;
    }

    private void done(List<SignCall> calls, List<SignResult> results) {
      queued.addAndGet(-calls.size());
      for (SignCall call : calls) bytesInFlight.addAndGet(-call.getRequest().getSerializedSize());
      answers.addAll(results);
    }

    @Override
    public void onError(Throwable t) {
      end(null); // the client went away: what is still being signed is answered to no one
    }

    @Override
    public void onCompleted() {
      synchronized (this) {
        halfClosed = true;
        if (waiting) paused.decrementAndGet();
        waiting = false;
      }
      finishIfDrained();
    }
  }

  /**
   * {@code calls} cut into at most {@code threads} runs of at least {@link #CALLS_PER_HOP} calls
   * (one run when there are fewer), in order, their lengths differing by one at most: what one
   * message's calls are signed in, each run by one thread.
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
    return SignResult.newBuilder()
        .setId(id)
        .setStatus(status.getCode().value())
        .setMessage(status.getDescription() == null ? "" : status.getDescription())
        .build();
  }
}
