package io.pkibench.workload.apispec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.formats.ades.SampleXml;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.SigningKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;

/**
 * An HTTP signing API of its own shape, for the {@code api} workload to drive on loopback: a bearer
 * token, then two steps ({@code POST /v1/documents} answers an id, {@code POST
 * /v1/documents/ID/sign} a raw ECDSA signature), a CMS made beforehand ({@code GET /v1/cms}) and a
 * CA ({@code POST /ca/issue} certifies a PEM CSR). {@link Behaviour} makes it fail as broken
 * services do.
 */
final class SigningApi implements AutoCloseable {
  enum Behaviour {
    HONEST,
    /** Signs other bytes than it was sent; its CA certifies another key than the CSR's. */
    LIAR,
    /** Answers 500 to every sign request. */
    BROKEN
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private final String token;
  private final boolean needClientCertificate;

  /** The subjects of the client certificates presented, one per request that presented one. */
  final Set<String> clientSubjects = ConcurrentHashMap.newKeySet();

  private final Behaviour behaviour;
  private final PrivateKey signer;
  private final PrivateKey caKey;
  private final X509Certificate ca;
  private final byte[] cms;
  private final Map<String, byte[]> documents = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private volatile SigningKey adesSigner;

  /** The client ports that reached the API: one per connection it accepted. */
  final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();

  final AtomicLong unauthorized = new AtomicLong();
  final AtomicLong signed = new AtomicLong();

  SigningApi(
      SSLContext tls,
      String token,
      Behaviour behaviour,
      PrivateKey signer,
      PrivateKey caKey,
      X509Certificate ca,
      byte[] cms)
      throws IOException {
    this(tls, false, token, behaviour, signer, caKey, ca, cms);
  }

  /** {@code needClientCertificate}: over TLS, a client that presents none is refused. */
  SigningApi(
      SSLContext tls,
      boolean needClientCertificate,
      String token,
      Behaviour behaviour,
      PrivateKey signer,
      PrivateKey caKey,
      X509Certificate ca,
      byte[] cms)
      throws IOException {
    this.needClientCertificate = needClientCertificate;
    this.token = token;
    this.behaviour = behaviour;
    this.signer = signer;
    this.caKey = caKey;
    this.ca = ca;
    this.cms = cms;
    InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 0);
    if (tls == null) server = HttpServer.create(loopback, 16);
    else {
      HttpsServer https = HttpsServer.create(loopback, 16);
      https.setHttpsConfigurator(
          new HttpsConfigurator(tls) {
            @Override
            public void configure(HttpsParameters parameters) {
              SSLParameters asked = tls.getDefaultSSLParameters();
              asked.setNeedClientAuth(needClientCertificate);
              parameters.setSSLParameters(asked);
            }
          });
      server = https;
    }
    server.createContext("/", this::handle);
    server.setExecutor(threads);
    server.start();
  }

  /**
   * {@code POST /v1/ades/pades} and {@code /v1/ades/xades} sign the document given (base64 {@code
   * content}) with {@code key} as PAdES or XAdES (EU DSS, as the reference signer does); a {@link
   * Behaviour#LIAR} signs another PDF or XML.
   */
  SigningApi signingAdesWith(SigningKey key) {
    this.adesSigner = key;
    return this;
  }

  /** A one-page PDF other than any the test sends. */
  private static byte[] otherPdf() throws IOException {
    try (PDDocument doc = new PDDocument()) {
      doc.addPage(new PDPage());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      doc.save(out);
      return out.toByteArray();
    }
  }

  String url() {
    return (server instanceof HttpsServer ? "https" : "http")
        + "://127.0.0.1:"
        + server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      serve(exchange);
    } catch (Exception e) {
      answer(exchange, 400, Map.of("error", String.valueOf(e.getMessage())));
    } finally {
      exchange.close();
    }
  }

  private void serve(HttpExchange exchange) throws Exception {
    {
      clientPorts.add(exchange.getRemoteAddress().getPort());
      if (exchange instanceof HttpsExchange https && needClientCertificate)
        clientSubjects.add(https.getSSLSession().getPeerPrincipal().getName());
      byte[] body = exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      if (!("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        unauthorized.incrementAndGet();
        answer(exchange, 401, Map.of("error", "bad token"));
        return;
      }
      if (path.equals("/v1/documents") && exchange.getRequestMethod().equals("POST")) {
        String id = "d" + ids.incrementAndGet();
        documents.put(id, Base64.getDecoder().decode(JSON.readTree(body).get("content").asText()));
        answer(exchange, 201, Map.of("id", id));
      } else if (path.matches("/v1/documents/[^/]+/sign")) {
        if (behaviour == Behaviour.BROKEN) {
          answer(exchange, 500, Map.of("error", "signer unavailable"));
          return;
        }
        JsonNode request = JSON.readTree(body);
        byte[] document = documents.remove(path.split("/")[3]);
        if (document == null || !request.path("keyId").asText().equals("k1")) {
          answer(exchange, 404, Map.of("error", "no such document or key"));
          return;
        }
        if (behaviour == Behaviour.LIAR) document = Arrays.copyOf(document, document.length + 1);
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(signer);
        s.update(document);
        signed.incrementAndGet();
        answer(exchange, 200, Map.of("signature", Base64.getEncoder().encodeToString(s.sign())));
      } else if (path.equals("/v1/ades/pades") || path.equals("/v1/ades/xades")) {
        byte[] document = Base64.getDecoder().decode(JSON.readTree(body).get("content").asText());
        boolean pdf = path.endsWith("pades");
        if (behaviour == Behaviour.LIAR) document = pdf ? otherPdf() : SampleXml.generate(4096);
        byte[] signedDocument =
            new TwoPhaseSigner(null, InstantSource.system())
                .sign(
                    pdf ? TwoPhaseSigner.Format.PADES : TwoPhaseSigner.Format.XADES,
                    new InMemoryDocument(document, pdf ? "doc.pdf" : "doc.xml"),
                    adesSigner,
                    null);
        signed.incrementAndGet();
        answer(exchange, 200, Map.of("signed", Base64.getEncoder().encodeToString(signedDocument)));
      } else if (path.equals("/v1/cms")) {
        answer(exchange, 200, Map.of("cms", Base64.getEncoder().encodeToString(cms)));
      } else if (path.equals("/ca/issue")) {
        answer(
            exchange, 200, Map.of("certificate", issue(JSON.readTree(body).get("csr").asText())));
      } else {
        answer(exchange, 404, Map.of("error", "no such endpoint"));
      }
    }
  }

  private String issue(String csrPem) throws Exception {
    PKCS10CertificationRequest csr;
    try (PEMParser pem = new PEMParser(new StringReader(csrPem))) {
      csr = (PKCS10CertificationRequest) pem.readObject();
    }
    PublicKey key = new JcaPEMKeyConverter().getPublicKey(csr.getSubjectPublicKeyInfo());
    if (behaviour == Behaviour.LIAR) {
      KeyPairGenerator other = KeyPairGenerator.getInstance("EC");
      other.initialize(256);
      KeyPair pair = other.generateKeyPair();
      key = pair.getPublic();
    }
    Date now = new Date();
    X509Certificate issued =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()),
                        BigInteger.valueOf(ids.incrementAndGet()),
                        new Date(now.getTime() - 60_000),
                        new Date(now.getTime() + 3_600_000),
                        csr.getSubject(),
                        key)
                    .build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKey)));
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(issued);
    }
    return out.toString();
  }

  private static void answer(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
