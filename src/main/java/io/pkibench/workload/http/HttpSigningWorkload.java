package io.pkibench.workload.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.SamplePdf;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.ades.Signers;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.KeptAnswers;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifySample;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.tls.WorkerClients;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;

/**
 * The client side of the signing service, end to end over HTTPS against {@code --target}: upload
 * the document with the certificate chain, sign what the service returns with the key source's key,
 * send the signature, receive the signed document ({@code --verify}: checked independently, one in
 * N with {@code --verify-sample N}, each check counted as verified). Every operation sends a
 * document of its own ({@link OperationDocuments}). {@code http:auth} logs in with a certificate;
 * {@code http:timestamp} asks the service's TSA.
 */
public final class HttpSigningWorkload implements Workload {
  private final String kind;
  private final TwoPhaseSigner.Format format;
  private final SigningServiceClient client;
  private final List<SigningKey> signers;

  /** http:timestamp's buffer of what is stamped (fresh bytes each request); null otherwise. */
  private final byte[] document;

  /** Each worker's documents, one per operation (signing kinds); null otherwise. */
  private final IntFunction<OperationDocuments> documents;

  private final String packaging;
  private final boolean verify;

  /** Under {@code verify}: one answer in this many checked ({@code --verify-sample}). */
  private final int verifyEvery;

  /**
   * The root the signing service's TSA must chain to (its B-T time-stamps are checked against it).
   */
  private final X509Certificate tsaTrustAnchor;

  /**
   * http:timestamp's check of each reply: tsp's, its tokens chained to {@code tsaTrustAnchor} under
   * --verify.
   */
  private final TimeStampCheck timestampCheck;

  /** Per signer (same index): its chain in base64 DER, made once rather than per operation. */
  private final List<List<String>> chains = new ArrayList<>();

  /**
   * With -p identities over mutual TLS: each worker's own certificate, and so its own client (null:
   * every worker shares {@link #client}).
   */
  private WorkerClients.Identities tlsIdentities;

  /**
   * With -p identities on http:auth: each worker logs in with a certificate and key of its own
   * (null: the signers in turn).
   */
  private WorkerClients.Identities loginIdentities;

  private X509Certificate root;
  private KeptAnswers kept = KeptAnswers.in("");
  private URI base;

  /**
   * Each worker's own client (its connections present its certificate), made when the worker first
   * asks for an operation.
   */
  private final Map<Integer, SigningServiceClient> workerClients = new ConcurrentHashMap<>();

  private HttpSigningWorkload(
      String kind,
      TwoPhaseSigner.Format format,
      SigningServiceClient client,
      List<SigningKey> signers,
      byte[] document,
      IntFunction<OperationDocuments> documents,
      String packaging,
      WorkloadContext context,
      X509Certificate tsaTrustAnchor)
      throws Exception {
    this.kind = kind;
    this.format = format;
    this.client = client;
    this.signers = signers;
    this.document = document;
    this.documents = documents;
    this.packaging = packaging;
    this.verify = context.verify();
    this.verifyEvery = context.verifyEvery();
    this.tsaTrustAnchor = tsaTrustAnchor;
    this.timestampCheck =
        new TimeStampCheck(verify ? CertificateTrust.of(List.of(tsaTrustAnchor)) : null);
    this.unsampledTimestampCheck = new TimeStampCheck(null);
    for (SigningKey key : signers) chains.add(chain(key));
  }

  /**
   * http:timestamp's check of a reply not sampled for the token's signature: status, nonce and
   * imprint.
   */
  private final TimeStampCheck unsampledTimestampCheck;

  /**
   * The type signed by the service without DSS: plain CMS SignedData, the one its ML-DSA keys can
   * take (RFC 9882).
   */
  static final String CMS = "cms";

  /**
   * DSS's types take the classical keys only; CMS any signer key of the test PKI, ML-DSA and
   * SLH-DSA too.
   */
  /** {@code -p client}: the test-PKI identity presented to a service reached over mutual TLS. */
  static final String CLIENT = "client";

  private static final ParamSpec CMS_ALG =
      ParamSpec.choice(
          "alg", "rsa2048", "signer key type (ML-DSA as RFC 9882)", KeyAlgorithm.flags());

  /** {@code kind}: cades, cades-t, pades, pades-t, xades, cms, auth or timestamp. */
  public static final class Factory implements WorkloadFactory {
    private final String kind;

    public Factory(String kind) {
      this.kind = kind;
    }

    @Override
    public String name() {
      return "http:" + kind;
    }

    @Override
    public String description() {
      return switch (kind) {
        case "auth" ->
            "certificate login against the signing service at --target (nonce, signature, validation)";
        case "timestamp" ->
            "RFC 3161 request to the signing service's time-stamp endpoint at --target";
        case CMS ->
            "CMS SignedData through the two-phase signing service at --target, without DSS: any key, ML-DSA as RFC 9882 (-p alg=ml-dsa-65)";
        default ->
            kind
                + " through the two-phase signing service at --target (start, sign locally, finish)";
      };
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> params =
          new ArrayList<>(
              List.of(
                  ParamSpec.free(
                      "target",
                      "",
                      "the signing service's URL, e.g. https://127.0.0.1:8443 (start one with 'pkibench serve signer')"),
                  kind.equals(CMS) ? CMS_ALG : Signers.ALG,
                  Signers.CERTS));
      if (kind.startsWith("cades")
          || kind.equals("xades")
          || kind.equals("timestamp")
          || kind.equals(CMS)) {
        params.add(
            ParamSpec.free(
                "size", kind.startsWith("cades") ? "137k" : "4k", "bytes of the document"));
      }
      if (kind.startsWith("cades") || kind.equals(CMS)) {
        params.add(
            ParamSpec.choice(
                "packaging",
                "detached",
                "CMS with or without the document",
                "detached",
                "enveloping"));
      }
      if (kind.startsWith("cades")) {
        params.add(
            ParamSpec.choice(
                "document",
                "random",
                "what each operation signs: random, -p size fresh random bytes per operation; pdf, the 137 KB"
                    + " sample PDF the PAdES types sign (the Rest PKI study signed one PDF throughout), each"
                    + " operation's copy with an identifier of its own in its XMP metadata",
                "random",
                "pdf"));
      }
      params.add(
          ParamSpec.free(
              CLIENT,
              "",
              "present this test-PKI identity (e.g. tls-client, its key from --keys) to a service reached over"
                  + " mutual TLS (e.g. behind a TLS terminator asking for client certificates)"));
      params.add(
          ParamSpec.free(
              WorkerClients.IDENTITIES,
              "",
              "one identity per worker; per-worker: the test PKI issues each worker a certificate"
                  + (kind.equals("auth")
                      ? " beside the signer's (-p alg), which it logs in with, and beside -p client's for mutual TLS when given;"
                      : " beside -p client's, presented over mutual TLS;")
                  + " DIR: a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key), one per worker in name order"));
      if (!kind.equals("auth")) params.add(KeptAnswers.SPEC);
      if (stamped()) {
        params.add(
            ParamSpec.free(
                "tsa-trust",
                "",
                "with --verify, when the service time-stamps through an outside TSA ('serve signer --tsa URL'):"
                    + " PEM file of that TSA's chain, which the B-T time-stamps must chain to (default: the test PKI's root)"));
      }
      return params;
    }

    /**
     * The kinds whose answers carry the service's time-stamps: B-T signatures and /api/timestamp.
     */
    private boolean stamped() {
      return kind.endsWith("-t") || kind.equals("timestamp");
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      if (stamped() && !params.get("tsa-trust").isBlank())
        problems.addAll(
            HttpTargets.certificatesProblem("tsa-trust", params.get("tsa-trust")).stream()
                .toList());
      String identities = params.get(WorkerClients.IDENTITIES);
      if (identities.equals(WorkerClients.PER_WORKER)) {
        if (!kind.equals("auth") && params.get(CLIENT).isEmpty()) {
          problems.add(
              "-p identities=per-worker on "
                  + name()
                  + " needs -p client=NAME: the test-PKI identity (e.g. tls-client) whose issuer and key type"
                  + " the certificates the workers present over mutual TLS take");
        }
      } else if (!identities.isEmpty() && !Files.isDirectory(Path.of(identities))) {
        problems.add(
            "-p identities="
                + identities
                + ": no such directory; give per-worker (the test PKI issues one per worker) or a directory of PEM pairs"
                + " (NAME.crt or NAME.pem with NAME.key)");
      }
      return problems;
    }

    @Override
    public List<String> workerProblems(Params params, int workers, String level) {
      return WorkerClients.workerProblems(params, workers, level);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      String target = params.get("target");
      if (target.isEmpty()) {
        throw new IllegalArgumentException(
            "--target: give the signing service's URL, e.g. --target https://127.0.0.1:8443 (start one with 'pkibench serve signer')");
      }
      URI base = URI.create(target.endsWith("/") ? target : target + "/");
      X509Certificate root = context.pki().get().certificate("root-ca");
      String clientAlias = params.get(CLIENT);
      SigningServiceClient client =
          new SigningServiceClient(
              base,
              clientAlias.isEmpty()
                  ? TlsContexts.trusting(root)
                  : TlsContexts.withIdentity(clientKey(context, clientAlias), root));
      List<SigningKey> signers = Signers.of(context, params);
      TwoPhaseSigner.Format format =
          kind.equals("auth") || kind.equals("timestamp") || kind.equals(CMS)
              ? null
              : TwoPhaseSigner.Format.parse(kind);
      HttpSigningWorkload w =
          new HttpSigningWorkload(
              kind,
              format,
              client,
              signers,
              kind.equals("timestamp") ? new byte[params.bytes("size")] : null,
              documents(format, params),
              kind.startsWith("cades") || kind.equals(CMS) ? params.get("packaging") : "detached",
              context,
              tsaTrustAnchor(context, params));
      String identities = params.get(WorkerClients.IDENTITIES);
      w.root = root;
      if (!kind.equals("auth")) w.kept = KeptAnswers.in(params.get(KeptAnswers.PARAM));
      w.base = base;
      // per-worker: certificates for TLS only beside -p client; a directory's pairs are TLS
      // identities unless auth logs in with them alone
      if (!identities.isEmpty()
          && (!clientAlias.isEmpty()
              || (!kind.equals("auth") && !identities.equals(WorkerClients.PER_WORKER)))) {
        w.tlsIdentities = WorkerClients.identities(context, params, clientAlias);
      }
      if (!identities.isEmpty() && kind.equals("auth")) {
        w.loginIdentities =
            WorkerClients.identities(
                context, params, Entity.signerAlias(KeyAlgorithm.parse(params.get("alg")), 1));
      }
      return w;
    }

    /**
     * Each worker's documents, one per operation: {@code -p document=random}, fresh bytes; {@code
     * pdf} (and the PAdES types), the sample PDF numbered in its XMP metadata; XAdES, the sample
     * pacs.008 numbered in its MsgId. Null for the kinds that sign no document.
     */
    private IntFunction<OperationDocuments> documents(TwoPhaseSigner.Format format, Params params)
        throws IOException {
      if (format == null && !kind.equals(CMS)) return null;
      int run = new SplittableRandom().nextInt(); // no two runs' operations alike either
      boolean pdf =
          format == TwoPhaseSigner.Format.PADES
              || format == TwoPhaseSigner.Format.PADES_T
              || (kind.startsWith("cades") && params.get("document").equals("pdf"));
      if (pdf) {
        byte[] template = SamplePdf.withIdentifierSlot();
        int slot =
            indexOf(template, SamplePdf.IDENTIFIER_MARKER) + SamplePdf.IDENTIFIER_MARKER.length();
        return worker -> OperationDocuments.numbered(template, slot, run, worker);
      }
      if (format == TwoPhaseSigner.Format.XADES) {
        boolean sized = params.asMap().containsKey("size");
        byte[] template = AdesChecks.sampleDocument(format, sized ? params.bytes("size") : 0);
        // within the message's MsgId, after its "M0003" (35 characters at most, any text)
        int slot = indexOf(template, "<MsgId>") + "<MsgId>M0003".length();
        return worker -> OperationDocuments.numbered(template, slot, run, worker);
      }
      int size = params.bytes("size");
      return worker -> OperationDocuments.random(size, ((long) run << 32) ^ worker);
    }

    private static int indexOf(byte[] document, String marker) {
      String text = new String(document, StandardCharsets.ISO_8859_1);
      int at = text.indexOf(marker);
      if (at < 0 || text.indexOf(marker, at + 1) >= 0)
        throw new IllegalStateException("the sample document has no one place for " + marker);
      return at;
    }

    private static SigningKey clientKey(WorkloadContext context, String alias) {
      try {
        return context.keys().key(alias);
      } catch (GeneralSecurityException | RuntimeException e) {
        throw new IllegalArgumentException(
            "-p client="
                + alias
                + ": --keys "
                + context.keys().describe()
                + " has no such key: "
                + e.getMessage(),
            e);
      }
    }

    /**
     * The root the service's B-T time-stamps must chain to: {@code -p tsa-trust}'s when the service
     * uses an outside TSA.
     */
    private X509Certificate tsaTrustAnchor(WorkloadContext context, Params params)
        throws IOException {
      if (!stamped() || params.get("tsa-trust").isBlank()) return Signers.tsaTrustAnchor(context);
      return CertificateTrust.of(
              PemKeys.certificates(Files.readAllBytes(Path.of(params.get("tsa-trust")))))
          .anchor();
    }
  }

  /**
   * Without {@code --verify} a plain operation; with it, one that says which answers it checked (a
   * login's answer always: reading it is the check; a signature or a time-stamp token one in {@code
   * --verify-sample}).
   */
  @Override
  public Operation newOperation(int worker) throws Exception {
    int[] turn = {worker};
    SigningServiceClient client = clientFor(worker);
    if (loginIdentities != null) {
      SigningKey own = loginIdentities.forWorker(worker);
      List<String> chain = chain(own);
      if (!verify) return () -> login(client, own, chain, true);
      return (CheckedOperation)
          () -> {
            login(client, own, chain, true);
            return true;
          };
    }
    if (kind.equals("auth")) {
      Operation login =
          () -> {
            int index = turn[0]++ % signers.size();
            login(client, signers.get(index), chains.get(index), false);
          };
      if (!verify) return login;
      return (CheckedOperation)
          () -> {
            login.execute();
            return true;
          };
    }
    if (kind.equals("timestamp")) return timestampOperation(client, worker);
    OperationDocuments docs = documents.apply(worker);
    if (!verify) return () -> sign(client, turn[0]++ % signers.size(), docs.next(), false);
    VerifySample sample = new VerifySample(verifyEvery, worker);
    return (CheckedOperation)
        () -> sign(client, turn[0]++ % signers.size(), docs.next(), sample.next());
  }

  /**
   * Worker {@code worker}'s client: its own, presenting its certificate, with -p identities over
   * mutual TLS; else the shared one.
   */
  private SigningServiceClient clientFor(int worker) throws Exception {
    if (tlsIdentities == null) return client;
    SigningServiceClient own = workerClients.get(worker);
    if (own == null) {
      own =
          new SigningServiceClient(
              base, TlsContexts.withIdentity(tlsIdentities.forWorker(worker), root));
      SigningServiceClient raced = workerClients.putIfAbsent(worker, own);
      if (raced != null) {
        own.close();
        own = raced;
      }
    }
    return own;
  }

  /**
   * One signature of {@code document}; with {@code check}, the service's answer is checked against
   * it (true: checked and passed).
   */
  private boolean sign(SigningServiceClient client, int index, byte[] document, boolean check)
      throws Exception {
    SigningKey key = signers.get(index);
    byte[] startBody =
        SigningServiceClient.json(
            new StartRequest(
                Base64.getEncoder().encodeToString(document), chains.get(index), packaging));
    JsonNode started = client.post("api/signatures/" + kind + "/start", startBody);
    Signature signer =
        Signature.getInstance(started.get("signatureAlgorithm").asText(), key.provider());
    signer.initSign(key.privateKey());
    signer.update(Base64.getDecoder().decode(started.get("toSign").asText()));
    String signature = Base64.getEncoder().encodeToString(signer.sign());
    JsonNode finished =
        client.post(
            "api/signatures/" + started.get("token").asText() + "/finish",
            new FinishRequest(signature));
    byte[] signed = Base64.getDecoder().decode(finished.get("signed").asText());
    if (!check) return false;
    if (format == null) checkCms(signed, document, key);
    else AdesChecks.check(format, signed, document, key, tsaTrustAnchor);
    kept.keep(signed, document);
    return true;
  }

  /**
   * The SignedData holds the one signature asked for (a second is not ours to vouch for), and it
   * verifies with BouncyCastle under the key's certificate, over the document we sent.
   */
  private void checkCms(byte[] signed, byte[] document, SigningKey key) throws Exception {
    var data = new CMSSignedData(new CMSProcessableByteArray(document), signed);
    var signers = data.getSignerInfos().getSigners();
    if (signers.size() != 1)
      throw new SignatureException(
          "the service's CMS SignedData holds "
              + signers.size()
              + " SignerInfos, not the one signature asked for");
    var signer = signers.iterator().next();
    // from the certificate's bytes: BouncyCastle takes no other provider's ML-DSA key object
    var verifier =
        new JcaSimpleSignerInfoVerifierBuilder()
            .setProvider(BC)
            .build(new X509CertificateHolder(key.certificate().getEncoded()));
    if (!signer.verify(verifier))
      throw new SignatureException(
          "the service's CMS SignedData does not verify under " + key.alias());
  }

  /**
   * A certificate login with {@code key}; {@code own}: the worker's own identity, so the service
   * must answer for its subject.
   */
  private void login(SigningServiceClient client, SigningKey key, List<String> chain, boolean own)
      throws Exception {
    JsonNode started = client.post("api/auth/start", EMPTY);
    String algorithm = KeyAlgorithm.signatureAlgorithmFor(key.privateKey());
    Signature signer = Signature.getInstance(algorithm, key.provider());
    signer.initSign(key.privateKey());
    signer.update(Base64.getDecoder().decode(started.get("nonce").asText()));
    JsonNode answer =
        client.post(
            "api/auth/" + started.get("token").asText() + "/finish",
            new LoginRequest(chain, Base64.getEncoder().encodeToString(signer.sign())));
    if (!answer.path("valid").asBoolean())
      throw new IOException("login answered without valid=true: " + answer);
    String subject = key.certificate().getSubjectX500Principal().getName();
    if (own && answer.has("subject") && !answer.get("subject").asText().equals(subject)) {
      throw new IOException(
          "login as " + subject + " answered for " + answer.get("subject").asText());
    }
  }

  private Operation timestampOperation(SigningServiceClient client, int worker) throws Exception {
    SplittableRandom random = new SplittableRandom(worker);
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    TimeStampRequestGenerator requests = new TimeStampRequestGenerator();
    requests.setCertReq(true);
    byte[] stamped = document.clone(); // the worker's own: workers never share what they stamp
    VerifySample sample = verify ? new VerifySample(verifyEvery, worker) : null;
    CheckedOperation stamp =
        () -> {
          random.nextBytes(stamped);
          TimeStampRequest request =
              requests.generate(
                  NISTObjectIdentifiers.id_sha256,
                  sha256.digest(stamped),
                  BigInteger.valueOf(random.nextLong()));
          // status, nonce and imprint always; with --verify (one in --verify-sample) also the
          // token's signature by a TSA chaining to the test PKI's root (it was checked with the
          // certificate the token carries, which vouched for itself)
          boolean check = sample != null && sample.next();
          byte[] reply =
              client.postBinary(
                  "api/timestamp", "application/timestamp-query", request.getEncoded());
          (check ? timestampCheck : unsampledTimestampCheck).check(request, reply);
          if (check) kept.keep(reply, request.getEncoded());
          return check;
        };
    return verify ? stamp : stamp::execute;
  }

  @Override
  public void close() {
    client.close();
    workerClients.values().forEach(SigningServiceClient::close);
    workerClients.clear();
  }

  private static List<String> chain(SigningKey key) throws Exception {
    List<String> chain = new ArrayList<>();
    for (var c : key.chain()) chain.add(Base64.getEncoder().encodeToString(c.getEncoded()));
    return List.copyOf(chain);
  }

  /** The signing service's request bodies (README, "the signing service"). */
  record StartRequest(String document, List<String> certificates, String packaging) {}

  record FinishRequest(String signature) {}

  record LoginRequest(List<String> certificates, String signature) {}

  private static final BouncyCastleProvider BC = new BouncyCastleProvider();
  private static final byte[] EMPTY = "{}".getBytes(StandardCharsets.US_ASCII);
}
