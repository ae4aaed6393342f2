package io.pkibench.server.keyserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.keyserver.protocol.HashAlgorithm;
import io.pkibench.keyserver.protocol.SignRequest;
import io.pkibench.keyserver.protocol.SignatureScheme;
import io.pkibench.keyserver.protocol.v2.KeyServerGrpc;
import io.pkibench.keyserver.protocol.v2.SignBatch;
import io.pkibench.keyserver.protocol.v2.SignCall;
import io.pkibench.keyserver.protocol.v2.SignResult;
import io.pkibench.keyserver.protocol.v2.SignResults;
import io.pkibench.session.ForkedSeries;
import io.pkibench.study.ServiceProcess;
import io.pkibench.testing.Await;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.Signature;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract v2's stream counts calls, not only bytes: a call without a request ends the stream, as
 * does a message of more calls than one may carry; a client that does not read its answers stops
 * being read from once its stream holds its limit of calls; the node's queue of calls to sign is
 * bounded; and another client of the node keeps signing meanwhile. Real gRPC over loopback with
 * mutual TLS, the nodes in this JVM (their counters read) or in their own.
 */
@Timeout(
    value = 3,
    unit = TimeUnit.MINUTES) // every test talks to key-server nodes: a hang ends, said as one
class SignStreamLimitsTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static final BouncyCastleProvider BC = new BouncyCastleProvider();
  final List<AutoCloseable> open = new ArrayList<>();
  final List<String> log = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @AfterEach
  void closeAll() throws Exception {
    Collections.reverse(open);
    for (AutoCloseable c : open) c.close();
  }

  KeyServer node(KeyServer.Limits limits) throws Exception {
    var service =
        new KeyService(
            fixture.keys,
            fixture.keys.aliases(),
            KeyGrants.everyKeyFor(fixture.pki.certificate("tls-client")),
            log::add);
    SigningKey identity =
        new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("keyserver");
    KeyServer server =
        new KeyServer(
            service, identity, fixture.pki.certificate("root-ca"), "127.0.0.1", 0, limits);
    server.start();
    open.add(server);
    return server;
  }

  static KeyServer.Limits twoThreads() {
    return new KeyServer.Limits(1 << 20, Duration.ofSeconds(10), Duration.ofMinutes(5), 2);
  }

  /**
   * A channel as the test PKI's tls-client, receiving at most {@code windowBytes} ahead of what it
   * reads.
   */
  ManagedChannel channel(int port, int windowBytes) throws Exception {
    ChannelCredentials credentials =
        TlsChannelCredentials.newBuilder()
            .keyManager(
                TlsContexts.keyManagers(
                    new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("tls-client")))
            .trustManager(TlsContexts.trustManagers(fixture.pki.certificate("root-ca")))
            .build();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port, credentials)
            .flowControlWindow(windowBytes)
            .maxInboundMessageSize(4 << 20)
            .build();
    open.add(channel::shutdownNow);
    return channel;
  }

  static SignRequest ecdsaDigest() throws Exception {
    byte[] digest =
        MessageDigest.getInstance("SHA-256").digest("a payment the key server signs".getBytes());
    return SignRequest.newBuilder()
        .setAlias("signer-ecdsa-p256-1")
        .setScheme(SignatureScheme.ECDSA)
        .setHash(HashAlgorithm.SHA_256)
        .setDigest(ByteString.copyFrom(digest))
        .build();
  }

  /**
   * A SignStream whose answers are counted, and how it ended; {@code reads} false: the client never
   * takes an answer.
   */
  static final class Stream {
    final StreamObserver<SignBatch> requests;
    final AtomicInteger answers = new AtomicInteger();
    final Map<Long, SignResult> results = new ConcurrentHashMap<>();
    final CompletableFuture<Status> ended = new CompletableFuture<>();

    Stream(ManagedChannel channel, boolean reads) {
      requests =
          KeyServerGrpc.newStub(channel)
              .withDeadlineAfter(120, TimeUnit.SECONDS)
              .signStream(
                  new ClientResponseObserver<SignBatch, SignResults>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<SignBatch> stream) {
                      if (!reads) stream.disableAutoRequestWithInitial(0);
                    }

                    @Override
                    public void onNext(SignResults batch) {
                      for (SignResult r : batch.getResultsList()) results.put(r.getId(), r);
                      answers.addAndGet(batch.getResultsCount());
                    }

                    @Override
                    public void onError(Throwable t) {
                      ended.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                      ended.complete(Status.OK);
                    }
                  });
    }

    /**
     * {@code calls} calls of {@code request}, ids from {@code firstId}, {@code perMessage} to a
     * message.
     */
    void send(SignRequest request, long firstId, int calls, int perMessage) {
      for (int i = 0; i < calls; i += perMessage) {
        SignBatch.Builder batch = SignBatch.newBuilder();
        for (int j = i; j < Math.min(calls, i + perMessage); j++)
          batch.addCalls(SignCall.newBuilder().setId(firstId + j).setRequest(request));
        requests.onNext(batch.build());
      }
    }
  }

  @Test
  void signStream_callsWithoutARequest_streamEndsInvalidArgumentUnanswered() throws Exception {
    KeyServer server = node(twoThreads());
    Stream stream = new Stream(channel(server.port(), 1 << 20), true);
    SignBatch.Builder batch = SignBatch.newBuilder();
    for (long id = 1; id <= 50; id++)
      batch.addCalls(SignCall.newBuilder().setId(id)); // the finding's zero-byte calls
    stream.requests.onNext(batch.build());
    stream.requests.onCompleted();
    Status ended = stream.ended.get(30, TimeUnit.SECONDS);
    assertEquals(
        Status.Code.INVALID_ARGUMENT,
        ended.getCode(),
        "the stream ends: " + ended + ", " + stream.answers.get() + " answers");
    assertTrue(ended.getDescription().contains("call 1 has no request"), ended.toString());
    assertEquals(
        0, stream.answers.get(), "no call of the message is answered: " + stream.results.values());
    assertEquals(
        new KeyService.Counts(0, 0, 0), server.counts(), "nothing was signed or refused per call");

    // an empty request is no request either: its zero bytes escaped the byte limit as a missing one
    // did
    Stream empty = new Stream(channel(server.port(), 1 << 20), true);
    empty.requests.onNext(
        SignBatch.newBuilder()
            .addCalls(SignCall.newBuilder().setId(9).setRequest(SignRequest.getDefaultInstance()))
            .build());
    Status emptyEnded = empty.ended.get(30, TimeUnit.SECONDS);
    assertEquals(Status.Code.INVALID_ARGUMENT, emptyEnded.getCode(), emptyEnded.toString());

    // the node serves the next stream as before
    Stream honest = new Stream(channel(server.port(), 1 << 20), true);
    honest.send(ecdsaDigest(), 1, 3, 3);
    honest.requests.onCompleted();
    assertEquals(Status.Code.OK, honest.ended.get(30, TimeUnit.SECONDS).getCode());
    assertEquals(
        3,
        honest.results.values().stream().filter(r -> r.getStatus() == 0).count(),
        honest.results.toString());
  }

  @Test
  void signStream_messageOfMoreCallsThanAllowed_streamEndsResourceExhausted() throws Exception {
    KeyServer server = node(twoThreads());
    Stream stream = new Stream(channel(server.port(), 1 << 20), true);
    stream.send(
        ecdsaDigest(),
        1,
        SignStreams.MOST_CALLS_PER_MESSAGE + 1,
        SignStreams.MOST_CALLS_PER_MESSAGE + 1);
    Status ended = stream.ended.get(30, TimeUnit.SECONDS);
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, ended.getCode(), ended.toString());
    assertTrue(
        ended.getDescription().contains(SignStreams.MOST_CALLS_PER_MESSAGE + " calls"),
        ended.toString());
    assertEquals(0, server.counts().served(), "none of the message was signed");
  }

  /**
   * 20,000 valid signature calls from a client that never takes an answer (it reads nothing, and
   * its window lets 64 KiB of answers reach it): the node reads the stream until it holds its limit
   * of unanswered calls, then reads no more of it, so what it holds for that stream stays within
   * the limit however much the client sends.
   */
  @Test
  void signStream_clientThatNeverReads_nodeHoldsAtMostTheStreamsLimitAndStopsReading()
      throws Exception {
    KeyServer server = node(twoThreads());
    SignStreams streams = server.signStreams();
    int sent = 20_000;
    Stream greedy = new Stream(channel(server.port(), 64 * 1024), false);
    greedy.send(ecdsaDigest(), 1, sent, 16);
    Await.until(
        Duration.ofSeconds(90),
        "the node to stop reading the stream with nothing left to sign, or to read all of it",
        () ->
            (streams.pausedStreams() == 1 && streams.queued() == 0) || streams.callsRead() >= sent);
    int limit = KeyServer.Limits.DEFAULT_MAX_CALLS_PER_STREAM;
    assertTrue(
        streams.mostUnansweredOnAStream() <= limit,
        "the node held "
            + streams.mostUnansweredOnAStream()
            + " unanswered calls of one stream, more than its limit of "
            + limit
            + " (it read "
            + streams.callsRead()
            + " of "
            + sent
            + ")");
    assertTrue(
        streams.callsRead() < sent,
        "the node stopped reading: it read " + streams.callsRead() + " of " + sent);
    assertTrue(
        streams.mostQueued() <= KeyServer.Limits.DEFAULT_MAX_QUEUED_CALLS,
        "node queue high-water " + streams.mostQueued());
    assertEquals(0, greedy.answers.get(), "the client took no answer");
    assertTrue(
        !greedy.ended.isDone(),
        "the stream stays open, just not read: " + greedy.ended.getNow(null));
  }

  /**
   * A node whose queue takes 16 calls, one worker: a message of 200 valid calls has 16 of them
   * signed and the other 184 answered RESOURCE_EXHAUSTED, each by its id, naming the limit; the
   * queue never held more than 16.
   */
  @Test
  void signStream_nodeQueueFull_callsPastItAnsweredResourceExhausted() throws Exception {
    KeyServer server =
        node(
            new KeyServer.Limits(
                1 << 20,
                Duration.ofSeconds(10),
                Duration.ofMinutes(5),
                1,
                KeyServer.Limits.DEFAULT_MAX_CALLS_PER_CONNECTION,
                KeyServer.Limits.DEFAULT_MAX_CALLS_PER_STREAM,
                16));
    Stream stream = new Stream(channel(server.port(), 1 << 20), true);
    stream.send(ecdsaDigest(), 1, 200, 200);
    stream.requests.onCompleted();
    assertEquals(Status.Code.OK, stream.ended.get(60, TimeUnit.SECONDS).getCode());
    assertEquals(200, stream.results.size(), "every call answered once");
    long signed = stream.results.values().stream().filter(r -> r.getStatus() == 0).count();
    List<SignResult> refused =
        stream.results.values().stream()
            .filter(r -> r.getStatus() == Status.Code.RESOURCE_EXHAUSTED.value())
            .toList();
    assertEquals(16, signed, "the queue's 16 signed");
    assertEquals(
        184,
        refused.size(),
        "the rest refused: "
            + stream.results.values().stream().map(SignResult::getStatus).distinct().toList());
    assertTrue(refused.get(0).getMessage().contains("16 calls"), refused.get(0).getMessage());
    assertTrue(
        server.signStreams().mostQueued() <= 16,
        "queue high-water " + server.signStreams().mostQueued());
  }

  /**
   * A node in its own JVM (two worker threads; its transport has 2 × cores event-loop threads) and
   * a greedy client on eight connections, so that each of the node's event loops reads one: each
   * connection's stream sends two messages of 14,000 RSA-3072 signature calls, within the byte
   * limit, and never reads an answer. A second, well-behaved client connecting after them signs 500
   * digests on its own stream and reads its answers: it gets every one within a generous deadline.
   * Before, the node took each greedy message whole and signed half of it on the thread that read
   * it, which the second client's connection shares: minutes of RSA signatures ahead of its first
   * call. Now a message of more than 256 calls ends its stream RESOURCE_EXHAUSTED, unsigned.
   */
  @Test
  @Timeout(240)
  void signStream_greedyClientsOnEveryEventLoop_aSecondClientStillGetsItsAnswers()
      throws Exception {
    ServiceProcess process =
        ServiceProcess.start(
            ForkedSeries.thisJvm(),
            List.of(
                "serve",
                "keyserver",
                "--port",
                "0",
                "--threads",
                "2",
                "--pki",
                fixture.pki.dir().toString()),
            Map.of("PATH", System.getenv("PATH")));
    open.add(process::close);
    int port = Integer.parseInt(process.url().substring(process.url().lastIndexOf(':') + 1));

    byte[] digest =
        MessageDigest.getInstance("SHA-256").digest("a payment the key server signs".getBytes());
    SignRequest rsa3072 =
        SignRequest.newBuilder()
            .setAlias("signer-rsa3072-1")
            .setScheme(SignatureScheme.RSA_PKCS1_V1_5)
            .setHash(HashAlgorithm.SHA_256)
            .setDigest(ByteString.copyFrom(digest))
            .build();
    // nine connections made one after another, so that the node hands them to its event loops in
    // turn: the second
    // client's shares its event loop with a greedy one
    List<ManagedChannel> channels = new ArrayList<>();
    for (int c = 0; c < 9; c++) {
      ManagedChannel channel = channel(port, c < 8 ? 64 * 1024 : 1 << 20);
      Await.until(
          Duration.ofSeconds(30),
          "connection " + c + " to be ready",
          () -> channel.getState(true) == io.grpc.ConnectivityState.READY);
      channels.add(channel);
    }
    List<Stream> greedy = new ArrayList<>();
    for (ManagedChannel channel : channels.subList(0, 8)) {
      Stream stream = new Stream(channel, false);
      stream.send(rsa3072, 1, 28_000, 14_000);
      greedy.add(stream);
    }

    Stream honest = new Stream(channels.get(8), true);
    int calls = 500;
    honest.send(ecdsaDigest(), 1, calls, 10);
    honest.requests.onCompleted();
    Status ended =
        honest
            .ended
            .completeOnTimeout(
                Status.DEADLINE_EXCEEDED.withDescription("the stream did not end within 60 s"),
                60,
                TimeUnit.SECONDS)
            .get();
    assertEquals(
        Status.Code.OK,
        ended.getCode(),
        ended + " after " + honest.answers.get() + " of " + calls + " answers");
    assertEquals(calls, honest.results.size(), "every call of the second client answered");
    Signature verifier = Signature.getInstance("SHA256withECDSA", BC);
    verifier.initVerify(fixture.pki.certificate("signer-ecdsa-p256-1").getPublicKey());
    verifier.update("a payment the key server signs".getBytes());
    assertTrue(
        verifier.verify(honest.results.get(1L).getSignature().toByteArray()),
        "BouncyCastle verifies an answer: " + honest.results.get(1L));
    for (Stream g : greedy) {
      assertEquals(
          Status.Code.RESOURCE_EXHAUSTED,
          g.ended.get(30, TimeUnit.SECONDS).getCode(),
          "a greedy stream ends at its first message");
    }
  }
}
