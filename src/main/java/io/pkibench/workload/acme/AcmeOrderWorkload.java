package io.pkibench.workload.acme;

import io.pkibench.text.FailureCause;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtensionsGenerator;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.shredzone.acme4j.AccountBuilder;
import org.shredzone.acme4j.Authorization;
import org.shredzone.acme4j.Certificate;
import org.shredzone.acme4j.Login;
import org.shredzone.acme4j.Order;
import org.shredzone.acme4j.Problem;
import org.shredzone.acme4j.Session;
import org.shredzone.acme4j.Status;
import org.shredzone.acme4j.challenge.Http01Challenge;
import org.shredzone.acme4j.exception.AcmeException;
import org.shredzone.acme4j.exception.AcmeServerException;

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

  /** Beside saved certificates: the root they were verified against, for openssl verify. */
  public static final String ISSUER_ROOT = "issuer-root.pem";

  private final Mode mode;
  private final String directory;
  private final SSLContext trust;
  private final IssuedCheck check;
  private final List<KeyPair> pool;
  private final Path saveDir;
  private final int saveAtMost;
  private final InstantSource clock;
  private final Http01Answers answers;
  private final OrderLedger ledger = new OrderLedger();
  private final StepLatencies steps = new StepLatencies();
  private final AtomicInteger saved = new AtomicInteger();
  private final List<SharedHttpClient> clients = new ArrayList<>();

  /** Makes each run's names its own: a CA may refuse or reuse names a run before asked for. */
  private final String runTag = Long.toString(ThreadLocalRandom.current().nextLong() >>> 24, 36);

  AcmeOrderWorkload(
      Mode mode,
      String directory,
      SSLContext trust,
      IssuedCheck check,
      List<KeyPair> pool,
      Path saveDir,
      int saveAtMost,
      InstantSource clock,
      Http01Answers answers) {
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
            account.run(login -> renew(login, held, worker, next.incrementAndGet()));
            return verifies();
          };
    }
    return (CheckedOperation)
        () -> {
          long n = next.incrementAndGet();
          List<String> names = List.of(name(worker, Long.toString(n)));
          KeyPair key = key(worker, n);
          account.run(login -> issue(login, names, key, chain -> checkNew(chain, key, names)));
          return verifies();
        };
  }

  /** What an operation does with the worker's account. */
  private interface WithLogin {
    void run(Login login) throws Exception;
  }

  /**
   * A worker's account, made again when the CA no longer knows it: a CA that forgot its accounts (a
   * Pebble started again, in memory only) answers accountDoesNotExist, that operation fails, and
   * the worker's next one first registers a new account (its time counted in that operation, as a
   * client starting over would spend it). Counted in {@link #outcomes()}.
   */
  private final class Account {
    private Login login;
    private boolean lost;

    Account(Login login) {
      this.login = login;
    }

    void run(WithLogin operation) throws Exception {
      if (lost) {
        login = account();
        lost = false;
        accountsMadeAgain.incrementAndGet();
      }
      try {
        operation.run(login);
      } catch (AcmeServerException e) {
        if (ACCOUNT_DOES_NOT_EXIST.equals(e.getType().toString())) lost = true;
        throw e;
      }
    }
  }

  static final String ACCOUNT_DOES_NOT_EXIST = "urn:ietf:params:acme:error:accountDoesNotExist";

  private final AtomicLong accountsMadeAgain = new AtomicLong();

  /** A new account on an HTTP client of its own: one per worker, made before its first order. */
  Login account() throws Exception {
    SharedHttpClient http = new SharedHttpClient(trust, Duration.ofSeconds(10));
    synchronized (clients) {
      clients.add(http);
    }
    Session session = new Session(URI.create(directory), http);
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return new AccountBuilder()
        .agreeToTermsOfService()
        .useKeyPair(g.generateKeyPair())
        .createLogin(session);
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
  private void renew(Login login, Renewals held, int worker, long n) throws Exception {
    KeyPair key = key(worker, n);
    if (held.last != null && key.getPublic().equals(held.last.getPublicKey()))
      key = key(worker, n + 1);
    KeyPair csrKey = key;
    X509Certificate previous = held.last;
    List<X509Certificate> chain =
        issue(login, held.names, csrKey, c -> checkRenewal(c, csrKey, held.names, previous));
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
  List<X509Certificate> issue(Login login, List<String> names, KeyPair key, ChainCheck checks)
      throws Exception {
    long t0 = System.nanoTime();
    Order order = login.newOrder().domains(names).create();
    long t1 = System.nanoTime();
    steps.record("new-order", t1 - t0);
    String url = order.getLocation().toString();
    ledger.accepted(url);
    try {
      for (Authorization auth : order.getAuthorizations()) authorize(auth);
      long t2 = System.nanoTime();
      steps.record("authorize", t2 - t1);
      order.execute(csr(key, names));
      await(
          order::getStatus,
          order::update,
          () ->
              "order invalid: " + order.getError().map(Object::toString).orElse("no reason given"),
          "order");
      long t3 = System.nanoTime();
      steps.record("finalize", t3 - t2);
      Certificate certificate = order.getCertificate();
      certificate.download();
      List<X509Certificate> chain = certificate.getCertificateChain();
      steps.record("download", System.nanoTime() - t3);
      checks.check(chain);
      if (!ledger.issued(url, chain.get(0).getSerialNumber()) && check != null)
        throw new CertificateException(
            "serial " + chain.get(0).getSerialNumber().toString(16) + " was issued before");
      save(chain, names.get(0));
      return chain;
    } catch (Exception e) {
      String why = FailureCause.sentenceOf(e);
      ledger.failed(url, why.length() > 120 ? why.substring(0, 120) + "…" : why);
      throw e;
    }
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
  private void authorize(Authorization auth) throws Exception {
    if (auth.getStatus() == Status.VALID) return; // reused, as a CA may
    Http01Challenge challenge =
        auth.findChallenge(Http01Challenge.class)
            .orElseThrow(() -> new AcmeException("the authorization offers no http-01 challenge"));
    answers.offer(challenge.getToken(), challenge.getAuthorization());
    try {
      challenge.trigger();
      await(
          challenge::getStatus,
          challenge::update,
          () -> "challenge invalid: " + reason(challenge.getError()),
          "challenge");
    } finally {
      answers.withdraw(challenge.getToken());
    }
  }

  /**
   * The CA's reason, its type and detail, with what it quotes (tokens, key authorizations: new each
   * order) left out, so that the ledger counts one reason, not one per order.
   */
  static String reason(Optional<Problem> problem) {
    if (problem.isEmpty()) return "the CA gave no reason";
    Problem p = problem.get();
    String type = p.getType().toString();
    String detail = p.getDetail().orElse("");
    return (type.substring(type.lastIndexOf(':') + 1) + ": " + detail)
        .replaceAll("\"[^\"]*\"", "\"…\"")
        .strip();
  }

  /** What the CA last said of a resource, and how to ask it again. */
  private interface Poll {
    void update() throws AcmeException;
  }

  /**
   * Until {@code status} is valid, asking again ({@code update}) only when the last answer was not:
   * the answer to the trigger or finalize itself may already be final (a request saved); waiting a
   * little longer each time (2 ms, doubling to 100 ms), at most {@link #POLL_LIMIT}.
   */
  private static void await(
      Supplier<Status> status, Poll update, Supplier<String> invalid, String what)
      throws Exception {
    long deadline = System.nanoTime() + POLL_LIMIT.toNanos();
    long sleepMillis = 2;
    while (true) {
      Status now = status.get();
      if (now == Status.VALID) return;
      if (now == Status.INVALID) throw new AcmeException(invalid.get());
      if (System.nanoTime() > deadline)
        throw new AcmeException(what + " still " + now + " after " + POLL_LIMIT.toSeconds() + " s");
      Thread.sleep(sleepMillis);
      sleepMillis = Math.min(100, sleepMillis * 2);
      update.update();
    }
  }

  static byte[] csr(KeyPair key, List<String> names) throws Exception {
    String algorithm =
        key.getPublic().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    ExtensionsGenerator extensions = new ExtensionsGenerator();
    extensions.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            names.stream()
                .map(n -> new GeneralName(GeneralName.dNSName, n))
                .toArray(GeneralName[]::new)));
    return new JcaPKCS10CertificationRequestBuilder(
            new X500Name("CN=" + names.get(0)), key.getPublic())
        .addAttribute(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest, extensions.generate())
        .build(new JcaContentSignerBuilder(algorithm).build(key.getPrivate()))
        .getEncoded();
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
    if (answers instanceof Http01Listener listener) out.putAll(listener.counts());
    if (accountsMadeAgain.get() > 0) out.put("accounts made again", accountsMadeAgain.get());
    if (check != null && check.rootsFetchedAgain() > 0)
      out.put("issuer roots fetched again", check.rootsFetchedAgain());
    return out;
  }

  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(SharedHttpClient::close);
      clients.clear();
    }
    answers.close();
  }
}
