package io.pkibench.server.keyserver;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.formats.rsfn.Treatment;
import io.pkibench.formats.rsfn.Unpacked;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keyserver.protocol.DecryptRequest;
import io.pkibench.keyserver.protocol.DecryptResponse;
import io.pkibench.keyserver.protocol.GetChainRequest;
import io.pkibench.keyserver.protocol.GetChainResponse;
import io.pkibench.keyserver.protocol.KeyEntry;
import io.pkibench.keyserver.protocol.KeyServerGrpc;
import io.pkibench.keyserver.protocol.ListKeysRequest;
import io.pkibench.keyserver.protocol.ListKeysResponse;
import io.pkibench.keyserver.protocol.RsfnPackRequest;
import io.pkibench.keyserver.protocol.RsfnPackResponse;
import io.pkibench.keyserver.protocol.RsfnUnpackRequest;
import io.pkibench.keyserver.protocol.RsfnUnpackResponse;
import io.pkibench.keyserver.protocol.SignRequest;
import io.pkibench.keyserver.protocol.SignResponse;
import io.pkibench.text.OutsideText;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.IllegalBlockSizeException;

/**
 * The key server's operations over the keys of one {@link KeySource}. Every refusal is a status
 * that names what was wrong in our words; a failure of ours is INTERNAL with an id that the log
 * line carrying the cause repeats.
 */
public final class KeyService extends KeyServerGrpc.KeyServerImplBase {
  /**
   * The authenticated client's certificate, put in the call's context by the server's interceptor.
   */
  public static final Context.Key<X509Certificate> CALLER =
      Context.key("pkibench-keyserver-caller");

  private final KeySource source;
  private final List<String> aliases;
  private final Set<String> held;
  private final KeyGrants grants;

  /**
   * Each client certificate's answer per alias, so that a call does not fingerprint the certificate
   * and match the grants' patterns again: bounded by the aliases held, and cleared past {@link
   * #MOST_CALLERS} certificates.
   */
  private final Map<X509Certificate, Map<String, Boolean>> allowed = new ConcurrentHashMap<>();

  private static final int MOST_CALLERS = 1024;
  private final Consumer<String> log;
  private final Map<String, SigningKey> opened = new ConcurrentHashMap<>();
  private final LongAdder served = new LongAdder(),
      refused = new LongAdder(),
      failed = new LongAdder();
  private final AtomicLong failureIds = new AtomicLong();
  private final Protocol3 rsfn;

  /**
   * {@code rsfn} packs and unpacks RSFN envelopes with the node's keys (its CA codes and CRLs
   * decide what it accepts).
   */
  public KeyService(
      KeySource source,
      List<String> aliases,
      KeyGrants grants,
      Protocol3 rsfn,
      Consumer<String> log) {
    this.source = source;
    this.aliases = List.copyOf(aliases);
    this.held = Set.copyOf(aliases);
    this.grants = grants;
    this.rsfn = rsfn;
    this.log = log;
  }

  /** RSFN with the default CA codes and no CRLs: unpacking says revocation was not checked. */
  public KeyService(
      KeySource source, List<String> aliases, KeyGrants grants, Consumer<String> log) {
    this(
        source,
        aliases,
        grants,
        new Protocol3(CaCodes.defaults(), List.of(), InstantSource.system(), localProvider()),
        log);
  }

  /**
   * The fastest local provider for the keyless parts of RSFN (AES-GCM, RSA encryption,
   * verification).
   */
  public static Provider localProvider() {
    try {
      return ProviderChoice.best().providerFor("Cipher", "AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no AES-GCM provider: " + e.getMessage(), e);
    }
  }

  /**
   * A request whose bytes are not the message its method takes, refused by gRPC before it reaches
   * us: counted as refused and said in one line (gRPC itself logged a stack trace for each).
   */
  public void refusedMalformed(String why) {
    refused.increment();
    log.accept("key server: refused a malformed request (" + OutsideText.forTerminal(why) + ")");
  }

  /** Calls answered, refused (the client's fault) and failed (ours), since start. */
  public record Counts(long served, long refused, long failed) {}

  public Counts counts() {
    return new Counts(served.sum(), refused.sum(), failed.sum());
  }

  @Override
  public void sign(SignRequest request, StreamObserver<SignResponse> response) {
    answer(
        response,
        () -> {
          SigningKey key = key(request.getAlias());
          byte[] signature = KeyOperations.sign(key, request);
          return SignResponse.newBuilder().setSignature(ByteString.copyFrom(signature)).build();
        });
  }

  /**
   * A signature made as v1's Sign makes it, or the status v1 answers the same request with; counted
   * as v1 counts.
   */
  record Signed(byte[] signature, Status status) {}

  /**
   * v1's Sign for {@code caller} outside a v1 call (v2's stream): refusals and failures are said
   * and counted as there.
   */
  Signed signFor(X509Certificate caller, SignRequest request) {
    try {
      byte[] signature = KeyOperations.sign(key(caller, request.getAlias()), request);
      served.increment();
      return new Signed(signature, Status.OK);
    } catch (StatusRuntimeException refusal) {
      refused.increment();
      return new Signed(null, refusal.getStatus());
    } catch (Exception | Error e) {
      return new Signed(null, failure(e));
    }
  }

  /**
   * A failure of ours: counted, logged with an id, and the status the client gets, which names the
   * id only.
   */
  private Status failure(Throwable e) {
    failed.increment();
    long id = failureIds.incrementAndGet();
    log.accept("key server failure #" + id + ": " + e);
    return Status.INTERNAL.withDescription(
        "the key server failed (failure #" + id + " in its log)");
  }

  @Override
  public void decrypt(DecryptRequest request, StreamObserver<DecryptResponse> response) {
    answer(
        response,
        () -> {
          SigningKey key = key(request.getAlias());
          if (!key.privateKey().getAlgorithm().equals("RSA"))
            throw refusal(
                Status.INVALID_ARGUMENT,
                "key " + request.getAlias() + " is not an RSA key; only RSA keys decrypt");
          Cipher cipher = KeyOperations.cipher(request, key);
          try {
            return DecryptResponse.newBuilder()
                .setPlaintext(
                    ByteString.copyFrom(cipher.doFinal(request.getCiphertext().toByteArray())))
                .build();
          } catch (BadPaddingException | IllegalBlockSizeException e) {
            throw refusal(
                Status.INVALID_ARGUMENT,
                "the ciphertext does not decrypt under key "
                    + request.getAlias()
                    + " with "
                    + request.getPadding());
          }
        });
  }

  @Override
  public void getChain(GetChainRequest request, StreamObserver<GetChainResponse> response) {
    answer(
        response,
        () -> {
          GetChainResponse.Builder chain = GetChainResponse.newBuilder();
          for (X509Certificate c : key(request.getAlias()).chain())
            chain.addCertificates(ByteString.copyFrom(c.getEncoded()));
          return chain.build();
        });
  }

  @Override
  public void listKeys(ListKeysRequest request, StreamObserver<ListKeysResponse> response) {
    answer(
        response,
        () -> {
          ListKeysResponse.Builder list = ListKeysResponse.newBuilder();
          X509Certificate caller = CALLER.get();
          for (String alias : aliases) {
            if (caller != null && grants.allows(caller, alias)) {
              list.addKeys(
                  KeyEntry.newBuilder()
                      .setAlias(alias)
                      .setAlgorithm(open(alias).privateKey().getAlgorithm()));
            }
          }
          return list.build();
        });
  }

  @Override
  public void rsfnPack(RsfnPackRequest request, StreamObserver<RsfnPackResponse> response) {
    answer(
        response,
        () -> {
          SigningKey key = key(request.getAlias());
          Treatment treatment = Treatment.of(request.getSpecialTreatment());
          if (treatment == null)
            throw refusal(
                Status.INVALID_ARGUMENT,
                "special treatment "
                    + request.getSpecialTreatment()
                    + " is not one of protocol 3 (0, 1, 2, 3, 4, 6, 8, 10)");
          X509Certificate recipient =
              request.getRecipientCertificate().isEmpty()
                  ? null
                  : certificate(request.getRecipientCertificate(), "recipient");
          try {
            return RsfnPackResponse.newBuilder()
                .setEnvelope(
                    ByteString.copyFrom(
                        rsfn.pack(key, recipient, request.getPayload().toByteArray(), treatment)))
                .build();
          } catch (IllegalArgumentException e) {
            throw refusal(Status.INVALID_ARGUMENT, e.getMessage());
          }
        });
  }

  @Override
  public void rsfnUnpack(RsfnUnpackRequest request, StreamObserver<RsfnUnpackResponse> response) {
    answer(
        response,
        () -> {
          SigningKey key = key(request.getAlias());
          X509Certificate sender = certificate(request.getSenderCertificate(), "sender");
          Unpacked unpacked = rsfn.unpack(key, sender, request.getEnvelope().toByteArray());
          RsfnUnpackResponse.Builder answer =
              RsfnUnpackResponse.newBuilder()
                  .setErrorCode(unpacked.error().code)
                  .setHeader(ByteString.copyFrom(unpacked.answerHeader()));
          if (unpacked.ok()) answer.setPayload(ByteString.copyFrom(unpacked.payload()));
          else answer.setMessage(unpacked.message());
          return answer.build();
        });
  }

  private static X509Certificate certificate(ByteString der, String whose) {
    if (der.isEmpty())
      throw refusal(Status.INVALID_ARGUMENT, "give the " + whose + "'s certificate (DER)");
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509").generateCertificate(der.newInput());
    } catch (CertificateException | RuntimeException e) {
      throw refusal(
          Status.INVALID_ARGUMENT,
          "the " + whose + "'s certificate is not a DER X.509 certificate");
    }
  }

  private interface Work<T> {
    T run() throws Exception;
  }

  private <T> void answer(StreamObserver<T> response, Work<T> work) {
    if (Context.current().isCancelled()) {
      refused.increment();
      response.onError(
          Status.CANCELLED
              .withDescription("the client gave up before the node began")
              .asRuntimeException());
      return;
    }
    T value;
    try {
      value = work.run();
    } catch (StatusRuntimeException refusal) {
      refused.increment();
      response.onError(refusal);
      return;
    } catch (Exception | Error e) {
      response.onError(failure(e).asRuntimeException());
      return;
    }
    served.increment();
    response.onNext(value);
    response.onCompleted();
  }

  private SigningKey key(String alias) throws GeneralSecurityException {
    return key(CALLER.get(), alias);
  }

  private SigningKey key(X509Certificate caller, String alias) throws GeneralSecurityException {
    if (alias.isEmpty()) throw refusal(Status.INVALID_ARGUMENT, "name a key alias");
    // One answer for a key the node does not hold and a key the caller may not use, so that a
    // client
    // cannot learn which aliases exist beyond its grant.
    if (!held.contains(alias) || caller == null || !allows(caller, alias)) {
      throw refusal(
          Status.PERMISSION_DENIED,
          "no key '"
              + printable(alias)
              + "' for the client certificate "
              + (caller == null ? "(none)" : caller.getSubjectX500Principal().getName()));
    }
    countFor(caller);
    return open(alias);
  }

  /**
   * Key uses granted per client certificate subject, since start: what shows that a run's workers
   * came as many clients (one identity each) or as one. Bounded: past {@link #MOST_COUNTED_CLIENTS}
   * subjects the rest are counted together.
   */
  private final Map<String, LongAdder> usesByClient = new ConcurrentHashMap<>();

  static final int MOST_COUNTED_CLIENTS = 100_000;
  static final String OTHER_CLIENTS = "(other clients)";

  private void countFor(X509Certificate caller) {
    String subject = caller.getSubjectX500Principal().getName();
    LongAdder uses = usesByClient.get(subject);
    if (uses == null)
      uses =
          usesByClient.computeIfAbsent(
              usesByClient.size() < MOST_COUNTED_CLIENTS ? subject : OTHER_CLIENTS,
              s -> new LongAdder());
    uses.increment();
  }

  /** Key uses granted per client subject (RFC 2253), since start. */
  public Map<String, Long> usesByClient() {
    Map<String, Long> copy = new TreeMap<>();
    usesByClient.forEach((subject, uses) -> copy.put(subject, uses.sum()));
    return copy;
  }

  private boolean allows(X509Certificate caller, String alias) {
    if (allowed.size() > MOST_CALLERS) allowed.clear();
    return allowed
        .computeIfAbsent(caller, c -> new ConcurrentHashMap<>())
        .computeIfAbsent(alias, a -> grants.allows(caller, a));
  }

  /**
   * An alias as the client sent it, for a reply: printable ASCII, the rest as \\uXXXX, cut at 100
   * (a log line takes OutsideText).
   */
  static String printable(String text) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < text.length() && i < 100; i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c < 0x7f && c != '\\') s.append(c);
      else s.append(String.format("\\u%04x", (int) c));
    }
    if (text.length() > 100) s.append("...");
    return s.toString();
  }

  private SigningKey open(String alias) throws GeneralSecurityException {
    SigningKey key = opened.get(alias);
    if (key != null) return key;
    synchronized (opened) {
      key = opened.get(alias);
      if (key == null) {
        key = source.key(alias);
        opened.put(alias, key);
      }
      return key;
    }
  }

  static StatusRuntimeException refusal(Status status, String why) {
    return status.withDescription(why).asRuntimeException();
  }
}
