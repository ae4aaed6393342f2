package io.pkibench.workload.acme;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.text.FailureCause;
import io.pkibench.text.OutsideText;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtensionsGenerator;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * One whole RFC 8555 order per operation, as a client renewing its web server does it: a new order
 * for a fresh name, its authorization's http-01 challenge answered (the CA validating as it is set
 * to: Pebble's always-valid for load, or for real against pkibench's own {@link Http01Listener}
 * under {@code -p challenge=http-01}), finalize with a CSR over a key from a pool made before the
 * run, then the certificate downloaded. Each worker has its own account (made before its first
 * operation), HTTP client and nonces. Every accepted order is entered in an {@link OrderLedger}.
 *
 * <p>{@link Mode#RENEW}: each worker's orders are for the same name, the one its account got on its
 * first operation; each later one is a renewal (a new key from the pool, a new certificate), and
 * {@code --verify} also checks that its serial differs from the previous certificate's.
 */
final class AcmeOrderWorkload implements Workload, CountedOutcomes {
  /**
   * A fresh name per order ({@code acme:order}), or the worker's same name again ({@code
   * acme:renew}).
   */
  enum Mode {
    ORDER,
    RENEW
  }

  /** How long one order may wait for the CA to validate or to issue before it is failed. */
  static final Duration POLL_LIMIT = Duration.ofSeconds(30);

  /** How long one request may wait for the CA's answer (and a connection for its handshake). */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();

  /** Beside saved certificates: the root they were verified against, for openssl verify. */
  public static final String ISSUER_ROOT = "issuer-root.pem";

  private final Mode mode;
  private final String directory;
  private final SSLContext trust;
  private final IssuedCheck check;
  private final List<KeyPair> pool;
  private final PresignedEcdsa signer;
  private final Path saveDir;
  private final int saveAtMost;
  private final InstantSource clock;
  private final Http01Answers answers;
  private final Gate gate;
  private final OrderLedger ledger = new OrderLedger();
  private final StepLatencies steps = new StepLatencies();
  private final AtomicInteger saved = new AtomicInteger();
  private final List<AcmeClient> clients = new ArrayList<>();

  /** Makes each run's names its own: a CA may refuse or reuse names a run before asked for. */
  private final String runTag = Long.toString(ThreadLocalRandom.current().nextLong() >>> 24, 36);

  AcmeOrderWorkload(
      Mode mode,
      String directory,
      SSLContext trust,
      IssuedCheck check,
      List<KeyPair> pool,
      PresignedEcdsa signer,
      Path saveDir,
      int saveAtMost,
      InstantSource clock,
      Http01Answers answers,
      boolean serialized) {
    this.signer = signer;
    this.gate = serialized ? new Gate(new ReentrantLock()) : new Gate(null);
    this.mode = mode;
    this.answers = answers;
    this.directory = directory;
    this.trust = trust;
    this.check = check;
    this.pool = List.copyOf(pool);
    this.saveDir = saveDir;
    this.saveAtMost = saveAtMost;
    this.clock = clock;
  }

  /** {@code alg}'s key pairs, {@code count} of them: the CSR keys, made before the run. */
  static List<KeyPair> keyPool(String alg, int count) throws Exception {
    KeyPairGenerator g;
    switch (alg) {
      case "ecdsa-p256" -> {
        g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
      }
      case "rsa2048" -> {
        g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
      }
      default -> throw new IllegalArgumentException("-p alg=" + alg + ": ecdsa-p256 or rsa2048");
    }
    List<KeyPair> pool = new ArrayList<>();
    for (int i = 0; i < count; i++) pool.add(g.generateKeyPair());
    return pool;
  }

  OrderLedger ledger() {
    return ledger;
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    Account account = new Account(account());
    AtomicLong next = new AtomicLong();
    // checked operations: under --verify each certificate is checked before the order counts, so
    // a level's verified count is its succeeded count, and the study's "ok" column says so
    if (mode == Mode.RENEW) {
      Renewals held = new Renewals(List.of(name(worker, "renew")));
      return (CheckedOperation)
          () -> {
            account.run(acme -> renew(acme, held, worker, next.incrementAndGet()));
            return verifies();
          };
    }
    return (CheckedOperation)
        () -> {
          long n = next.incrementAndGet();
          List<String> names = List.of(name(worker, Long.toString(n)));
          KeyPair key = key(worker, n);
          account.run(acme -> issue(acme, names, key, chain -> checkNew(chain, key, names)));
          return verifies();
        };
  }

  /**
   * Where a new order and an authorization's fetch wait for each other, when told to ({@code -p
   * serialize=new-order-and-authorization}): Debian's Pebble 2.4 deadlocks for good when one of
   * each overlap while a third request writes its store (the authorization handler holds the
   * authorization's lock and waits for the store; a new order's scan holds the store and waits for
   * that authorization; the queued writer blocks the first). Otherwise it lets everything through.
   */
  private record Gate(ReentrantLock lock) {
    interface Held extends AutoCloseable {
      @Override
      void close();
    }

    Held enter() {
      if (lock == null) return () -> {};
      lock.lock();
      return lock::unlock;
    }
  }

  /** What an operation does with the worker's account. */
  private interface WithAccount {
    void run(AcmeClient acme) throws Exception;
  }

  /**
   * A worker's account, made again when the CA no longer knows it: a CA that forgot its accounts (a
   * Pebble started again, in memory only) answers accountDoesNotExist, that operation fails, and
   * the worker's next one first registers a new account (its time counted in that operation, as a
   * client starting over would spend it). Counted in {@link #outcomes()}.
   */
  private final class Account {
    private AcmeClient acme;
    private boolean lost;

    Account(AcmeClient acme) {
      this.acme = acme;
    }

    void run(WithAccount operation) throws Exception {
      if (lost) {
        acme = account();
        lost = false;
        accountsMadeAgain.incrementAndGet();
      }
      try {
        operation.run(acme);
      } catch (AcmeProblem e) {
        if (e.is(ACCOUNT_DOES_NOT_EXIST)) lost = true;
        throw e;
      }
    }
  }

  static final String ACCOUNT_DOES_NOT_EXIST = "accountDoesNotExist";

  private final AtomicLong accountsMadeAgain = new AtomicLong();

  /**
   * A new account on a connection of its own: one per worker, made before its first order. A
   * worker's account made again replaces its first; the first's connection is closed at the end.
   */
  AcmeClient account() throws Exception {
    AcmeClient acme = new AcmeClient(URI.create(directory), trust, REQUEST_TIMEOUT, signer);
    synchronized (clients) {
      clients.add(acme);
    }
    acme.register();
    return acme;
  }

  String name(int worker, String which) {
    return "w" + worker + "-" + which + "-" + runTag + ".pkibench.example.com";
  }

  KeyPair key(int worker, long n) {
    return pool.get((int) ((worker * 7919L + n) % pool.size()));
  }

  /** What a worker's renewals hold: its names and the certificate it got for them last. */
  private static final class Renewals {
    final List<String> names;
    X509Certificate last;

    Renewals(List<String> names) {
      this.names = names;
    }
  }

  /**
   * The worker's first operation gets its names; each later one renews them over the next key of
   * the pool (never the previous certificate's key), and its certificate must be a new one.
   */
  private void renew(AcmeClient acme, Renewals held, int worker, long n) throws Exception {
    KeyPair key = key(worker, n);
    if (held.last != null && key.getPublic().equals(held.last.getPublicKey()))
      key = key(worker, n + 1);
    KeyPair csrKey = key;
    X509Certificate previous = held.last;
    List<X509Certificate> chain =
        issue(acme, held.names, csrKey, c -> checkRenewal(c, csrKey, held.names, previous));
    held.last = chain.get(0);
  }

  /**
   * {@code --verify} of a renewal: the order's checks, and a serial other than {@code previous}'s
   * (the certificate the worker held for the same names; null on its first order).
   */
  void checkRenewal(
      List<X509Certificate> chain, KeyPair key, List<String> names, X509Certificate previous)
      throws Exception {
    checkNew(chain, key, names);
    if (check != null
        && previous != null
        && chain.get(0).getSerialNumber().equals(previous.getSerialNumber()))
      throw new CertificateException(
          "the renewal's certificate has the previous one's serial "
              + previous.getSerialNumber().toString(16)
              + ": not a new certificate");
  }

  void checkNew(List<X509Certificate> chain, KeyPair key, List<String> names) throws Exception {
    if (check != null) check.check(chain, key.getPublic(), names, clock.instant());
  }

  /** What is checked of a downloaded chain before it counts as issued. */
  interface ChainCheck {
    void check(List<X509Certificate> chain) throws Exception;
  }

  /**
   * One whole order for {@code names} over {@code key}, its steps timed and its outcome entered in
   * the ledger: the chain downloaded, checked by {@code checks} (under {@code --verify}) and new.
   */
  List<X509Certificate> issue(AcmeClient acme, List<String> names, KeyPair key, ChainCheck checks)
      throws Exception {
    long t0 = System.nanoTime();
    URI newOrder = acme.directory().newOrder();
    AcmeConnection.Response created;
    try (Gate.Held held = gate.enter()) {
      created = acme.post(newOrder, identifiers(names));
    }
    JsonNode order = AcmeClient.json(created, "the new order");
    String location = created.header("location");
    if (created.status() != 201 || location == null)
      throw new IOException(
          "the CA answered the new order with HTTP "
              + created.status()
              + (location == null ? " and no Location" : ", not 201"));
    URI url = acme.urlOf(location, "order", newOrder);
    long t1 = System.nanoTime();
    steps.record("new-order", t1 - t0);
    ledger.accepted(url.toString());
    try {
      JsonNode authorizations = order.path("authorizations");
      if (!authorizations.isArray() || authorizations.isEmpty())
        throw new IOException("the CA's order lists no authorizations");
      for (JsonNode a : authorizations) authorize(acme, acme.urlOf(a, "authorization", url));
      long t2 = System.nanoTime();
      steps.record("authorize", t2 - t1);
      String csr = B64URL.encodeToString(csr(key, names, signer));
      JsonNode finalized =
          AcmeClient.json(
              acme.post(acme.url(order, "finalize", url), "{\"csr\":\"" + csr + "\"}"),
              "the finalized order");
      JsonNode issued = await(acme, url, finalized, "order");
      long t3 = System.nanoTime();
      steps.record("finalize", t3 - t2);
      List<X509Certificate> chain =
          chain(acme.download(acme.url(issued, "certificate", url)).body());
      steps.record("download", System.nanoTime() - t3);
      checks.check(chain);
      if (!ledger.issued(url.toString(), chain.get(0).getSerialNumber()) && check != null)
        throw new CertificateException(
            "serial " + chain.get(0).getSerialNumber().toString(16) + " was issued before");
      save(chain, names.get(0));
      return chain;
    } catch (Exception e) {
      String why = FailureCause.sentenceOf(e);
      ledger.failed(url.toString(), why.length() > 120 ? why.substring(0, 120) + "…" : why);
      throw e;
    }
  }

  /** A new order's payload: each name a dns identifier (§7.4). */
  private static String identifiers(List<String> names) {
    StringBuilder json = new StringBuilder("{\"identifiers\":[");
    for (int i = 0; i < names.size(); i++)
      json.append(i == 0 ? "" : ",")
          .append("{\"type\":\"dns\",\"value\":\"")
          .append(names.get(i)) // names are ours: letters, digits, dots and hyphens
          .append("\"}");
    return json.append("]}").toString();
  }

  /** A downloaded PEM chain, the issued certificate first; none at all is an error. */
  static List<X509Certificate> chain(byte[] pem) throws CertificateException {
    List<X509Certificate> chain = new ArrayList<>();
    for (java.security.cert.Certificate c :
        CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem)))
      chain.add((X509Certificate) c);
    if (chain.isEmpty()) throw new CertificateException("the CA sent no certificate");
    return chain;
  }

  StepLatencies steps() {
    return steps;
  }

  boolean verifies() {
    return check != null;
  }

  /**
   * Answers the http-01 challenge ({@link #answers}: offered before the CA is told, withdrawn once
   * it is over), triggers it and waits on the challenge, never on the authorization: Debian's
   * Pebble 2.4 answers an authorization while holding its write lock and then waits for its store,
   * which a new order's scan of every authorization (holding the store, waiting for that lock) can
   * block for good while a third request waits to write the store (a goroutine dump of a hung
   * Pebble shows the three): each poll of an authorization is one more chance of that hang. The one
   * fetch that finds the challenge cannot be avoided. An invalid challenge fails the order with the
   * CA's own reason.
   */
  private void authorize(AcmeClient acme, URI url) throws Exception {
    AcmeConnection.Response fetched;
    try (Gate.Held held = gate.enter()) {
      fetched = acme.postAsGet(url);
    }
    JsonNode auth = AcmeClient.json(fetched, "the authorization");
    if ("valid".equals(auth.path("status").asText())) return; // reused, as a CA may
    JsonNode challenge = null;
    for (JsonNode c : auth.path("challenges"))
      if ("http-01".equals(c.path("type").asText())) challenge = c;
    if (challenge == null) throw new IOException("the authorization offers no http-01 challenge");
    String token = challenge.path("token").asText("");
    if (!TOKEN.matcher(token).matches())
      throw new IOException("the CA's http-01 token is not base64url (RFC 8555 §8.3)");
    URI at = acme.url(challenge, "url", url);
    answers.offer(token, acme.keyAuthorization(token));
    try {
      JsonNode triggered = AcmeClient.json(acme.post(at, "{}"), "the challenge");
      await(acme, at, triggered, "challenge");
    } finally {
      answers.withdraw(token);
    }
  }

  private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]{1,256}");

  /**
   * The CA's reason, its type and detail, with what it quotes (tokens, key authorizations: new each
   * order) left out, so that the ledger counts one reason, not one per order.
   */
  static String reason(JsonNode problem) {
    if (problem == null || !problem.isObject()) return "the CA gave no reason";
    String type = problem.path("type").asText("");
    String detail = problem.path("detail").asText("");
    return OutsideText.forTerminal(
        (type.substring(type.lastIndexOf(':') + 1) + ": " + detail)
            .replaceAll("\"[^\"]*\"", "\"…\"")
            .strip(),
        300);
  }

  /**
   * {@code state} (what the CA last said of the resource at {@code url}) once it is valid, asking
   * again only when the last answer was not: the answer to the trigger or finalize itself may
   * already be final (a request saved); waiting a little longer each time (2 ms, doubling to 100
   * ms), at most {@link #POLL_LIMIT}. Invalid fails with the CA's reason.
   */
  private static JsonNode await(AcmeClient acme, URI url, JsonNode state, String what)
      throws Exception {
    long deadline = System.nanoTime() + POLL_LIMIT.toNanos();
    long sleepMillis = 2;
    while (true) {
      String status = state.path("status").asText("");
      if (status.equals("valid")) return state;
      if (status.equals("invalid"))
        throw new IOException(what + " invalid: " + reason(state.get("error")));
      if (System.nanoTime() > deadline)
        throw new IOException(
            what
                + " still "
                + OutsideText.forTerminal(status, 40)
                + " after "
                + POLL_LIMIT.toSeconds()
                + " s");
      Thread.sleep(sleepMillis);
      sleepMillis = Math.min(100, sleepMillis * 2);
      state = AcmeClient.json(acme.postAsGet(url), "the " + what);
    }
  }

  /**
   * A PKCS#10 request for {@code names} over {@code key}: an EC key signed through {@code signer}
   * (its costly half done before the run), an RSA key by the JDK.
   */
  static byte[] csr(KeyPair key, List<String> names, PresignedEcdsa signer) throws Exception {
    ExtensionsGenerator extensions = new ExtensionsGenerator();
    extensions.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            names.stream()
                .map(n -> new GeneralName(GeneralName.dNSName, n))
                .toArray(GeneralName[]::new)));
    ContentSigner contentSigner =
        key.getPrivate() instanceof ECPrivateKey ec
            ? new PresignedContentSigner(signer, ec)
            : new JcaContentSignerBuilder("SHA256withRSA").build(key.getPrivate());
    return new JcaPKCS10CertificationRequestBuilder(
            new X500Name("CN=" + names.get(0)), key.getPublic())
        .addAttribute(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest, extensions.generate())
        .build(contentSigner)
        .getEncoded();
  }

  /** BouncyCastle's signing step of a CSR, done by {@link PresignedEcdsa}. */
  private static final class PresignedContentSigner implements ContentSigner {
    private static final AlgorithmIdentifier ECDSA_SHA256 =
        new AlgorithmIdentifier(X9ObjectIdentifiers.ecdsa_with_SHA256);
    private final PresignedEcdsa signer;
    private final ECPrivateKey key;
    private final ByteArrayOutputStream signed = new ByteArrayOutputStream(512);

    PresignedContentSigner(PresignedEcdsa signer, ECPrivateKey key) {
      this.signer = signer;
      this.key = key;
    }

    @Override
    public AlgorithmIdentifier getAlgorithmIdentifier() {
      return ECDSA_SHA256;
    }

    @Override
    public OutputStream getOutputStream() {
      return signed;
    }

    @Override
    public byte[] getSignature() {
      try {
        return signer.signDer(key, signed.toByteArray());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("signing the CSR: " + e.getMessage(), e);
      }
    }
  }

  /** The first {@code saveAtMost} certificates, as PEM chains, for {@code --save-samples}. */
  private void save(List<X509Certificate> chain, String name) throws IOException {
    int nth = saved.incrementAndGet();
    if (saveDir == null || nth > saveAtMost) return;
    StringBuilder pem = new StringBuilder();
    Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes());
    try {
      for (X509Certificate c : chain)
        pem.append("-----BEGIN CERTIFICATE-----\n")
            .append(b64.encodeToString(c.getEncoded()))
            .append("\n-----END CERTIFICATE-----\n");
    } catch (CertificateException e) {
      throw new IOException(e);
    }
    Files.createDirectories(saveDir);
    Files.writeString(saveDir.resolve(name + "-" + nth + ".pem"), pem);
    if (check != null && !Files.exists(saveDir.resolve(ISSUER_ROOT))) {
      try {
        Files.writeString(
            saveDir.resolve(ISSUER_ROOT),
            "-----BEGIN CERTIFICATE-----\n"
                + b64.encodeToString(check.issuerRoot().getEncoded())
                + "\n-----END CERTIFICATE-----\n");
      } catch (CertificateException e) {
        throw new IOException(e);
      }
    }
  }

  @Override
  public Map<String, Long> outcomes() {
    Map<String, Long> out = new TreeMap<>(ledger.counts());
    out.putAll(steps.percentilesMicros());
    out.put("ledger problems", (long) ledger.problems().size());
    synchronized (clients) { // read once the workers are done
      out.put("ACME requests sent", clients.stream().mapToLong(AcmeClient::requests).sum());
      out.put(
          "connections opened to the CA",
          clients.stream().mapToLong(AcmeClient::connectionsOpened).sum());
    }
    if (answers instanceof Http01Listener listener) out.putAll(listener.counts());
    if (accountsMadeAgain.get() > 0) out.put("accounts made again", accountsMadeAgain.get());
    // a run that outlasts the signatures made before it: slower per order, never wrong
    if (signer.signedWithoutPresign() > 0)
      out.put("signatures made in the run (presigned pool used up)", signer.signedWithoutPresign());
    if (check != null && check.rootsFetchedAgain() > 0)
      out.put("issuer roots fetched again", check.rootsFetchedAgain());
    return out;
  }

  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(AcmeClient::close);
      clients.clear();
    }
    answers.close();
  }
}
