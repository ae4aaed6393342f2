package io.pkibench.server.dss;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.jakarta.rs.json.JacksonJsonProvider;
import eu.europa.esig.dss.cades.signature.CAdESService;
import eu.europa.esig.dss.model.FileDocument;
import eu.europa.esig.dss.model.x509.CertificateToken;
import eu.europa.esig.dss.pades.signature.PAdESService;
import eu.europa.esig.dss.pdf.pdfbox.PdfBoxNativeObjectFactory;
import eu.europa.esig.dss.spi.validation.CommonCertificateVerifier;
import eu.europa.esig.dss.spi.x509.CommonCertificateSource;
import eu.europa.esig.dss.spi.x509.CommonTrustedCertificateSource;
import eu.europa.esig.dss.spi.x509.revocation.crl.ExternalResourcesCRLSource;
import eu.europa.esig.dss.spi.x509.tsp.TSPSource;
import eu.europa.esig.dss.ws.server.signing.common.RemoteSignatureTokenConnectionImpl;
import eu.europa.esig.dss.ws.server.signing.rest.RestSignatureTokenConnectionImpl;
import eu.europa.esig.dss.ws.signature.common.RemoteDocumentSignatureServiceImpl;
import eu.europa.esig.dss.ws.signature.rest.RestDocumentSignatureServiceImpl;
import eu.europa.esig.dss.ws.validation.common.RemoteDocumentValidationService;
import eu.europa.esig.dss.ws.validation.rest.RestDocumentValidationServiceImpl;
import eu.europa.esig.dss.xades.signature.XAdESService;
import io.pkibench.formats.ades.DssJson;
import io.pkibench.formats.ades.ResponderTspSource;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.keys.KeySource;
import io.pkibench.pki.Entity;
import io.pkibench.pki.Role;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.cxf.Bus;
import org.apache.cxf.BusFactory;
import org.apache.cxf.endpoint.Server;
import org.apache.cxf.jaxrs.JAXRSServerFactoryBean;
import org.apache.cxf.version.Version;

/**
 * EU DSS's own REST services, hosted unchanged: the one-document signature service ({@code
 * /services/rest/signature/one-document}), validation ({@code /services/rest/validation}) and
 * server signing ({@code /services/rest/server-signing}) as DSS's demonstration publishes them. Our
 * code only wires them, as DSS's demonstration does with Spring: the signature services get a
 * certificate verifier trusting the test PKI's root with its CRLs (read once, as a server that
 * downloaded them: no network), and the test PKI's TSA in this process for the -T levels;
 * validation gets the same verifier and DSS's default policy; server signing gets a token holding
 * the test PKI's signer keys. Every request is handled by DSS's classes on CXF's JAX-RS runtime
 * over Jetty.
 */
public final class DssServer implements ReferenceServer {
  public static final int DEFAULT_PORT = 8085;

  /**
   * Where DSS's demonstration mounts its REST services; clients give {@code --target
   * http://HOST:PORT/services/rest}.
   */
  public static final String BASE_PATH = "/services/rest";

  public static final String SIGNATURE = "/signature/one-document";
  public static final String VALIDATION = "/validation";
  public static final String SERVER_SIGNING = "/server-signing";

  private final String bind;
  private final int port;
  private final Map<String, Object> endpoints;
  private final int tokenKeys;
  private final Consumer<String> log;
  private Bus bus;
  private final List<Server> servers = new ArrayList<>();

  private DssServer(
      String bind, int port, Map<String, Object> endpoints, int tokenKeys, Consumer<String> log) {
    this.bind = bind;
    this.port = port;
    this.endpoints = endpoints;
    this.tokenKeys = tokenKeys;
    this.log = log;
  }

  /**
   * DSS wired to {@code pki}: its root trusted, its CRLs, its TSA ({@code keys}' tsa key) and its
   * signer keys from {@code keys} in the server-signing token. {@code port} 0 picks a free one.
   */
  public static DssServer forTestPki(
      TestPki pki, KeySource keys, String bind, int port, InstantSource clock, Consumer<String> log)
      throws Exception {
    CommonCertificateVerifier verifier = verifier(pki);
    TSPSource tsp =
        new ResponderTspSource(
            new TimeStampAuthority(keys.key("tsa"), clock),
            new TimeStampCheck(null)); // its own TSA: nothing to distrust

    CAdESService cades = new CAdESService(verifier);
    cades.setTspSource(tsp);
    PAdESService pades = new PAdESService(verifier);
    pades.setTspSource(tsp);
    // DSS's PDFBox backend, the one the project builds PAdES with (dss-pades-pdfbox).
    pades.setPdfObjFactory(new PdfBoxNativeObjectFactory());
    XAdESService xades = new XAdESService(verifier);
    xades.setTspSource(tsp);
    RemoteDocumentSignatureServiceImpl signing = new RemoteDocumentSignatureServiceImpl();
    signing.setCadesService(cades);
    signing.setPadesService(pades);
    signing.setXadesService(xades);
    RestDocumentSignatureServiceImpl signatureRest = new RestDocumentSignatureServiceImpl();
    signatureRest.setService(signing);

    RemoteDocumentValidationService validation = new RemoteDocumentValidationService();
    validation.setVerifier(verifier);
    RestDocumentValidationServiceImpl validationRest = new RestDocumentValidationServiceImpl();
    validationRest.setValidationService(validation);

    SignerKeyStore token = SignerKeyStore.of(keys, signerAliases(pki));
    RemoteSignatureTokenConnectionImpl remoteToken = new RemoteSignatureTokenConnectionImpl();
    remoteToken.setToken(token);
    RestSignatureTokenConnectionImpl tokenRest = new RestSignatureTokenConnectionImpl();
    tokenRest.setToken(remoteToken);

    int chosen = port != 0 ? port : freePort(bind);
    return new DssServer(
        bind,
        chosen,
        Map.of(SIGNATURE, signatureRest, VALIDATION, validationRest, SERVER_SIGNING, tokenRest),
        token.size(),
        log);
  }

  /**
   * The test PKI as a DSS server would know it: the root trusted, the intermediates at hand, the
   * CRLs downloaded; nothing fetched.
   */
  static CommonCertificateVerifier verifier(TestPki pki) {
    CommonCertificateVerifier verifier = new CommonCertificateVerifier();
    CommonTrustedCertificateSource trusted = new CommonTrustedCertificateSource();
    trusted.addCertificate(new CertificateToken(pki.certificate("root-ca")));
    verifier.setTrustedCertSources(trusted);
    CommonCertificateSource intermediates = new CommonCertificateSource();
    List<FileDocument> crls = new ArrayList<>();
    for (Entity e : pki.entities()) {
      if (e.keyAlgorithm().isPostQuantum())
        continue; // DSS 6.4 knows no ML-DSA certificate: the ML-DSA chain stays out of its view
      if (e.role() == Role.INTERMEDIATE_CA)
        intermediates.addCertificate(new CertificateToken(pki.certificate(e.alias())));
      if (e.isCa()) crls.add(new FileDocument(pki.crl(e.alias()).toFile()));
    }
    verifier.setAdjunctCertSources(intermediates);
    verifier.setCrlSource(new ExternalResourcesCRLSource(crls.toArray(FileDocument[]::new)));
    // No download on a client's behalf: the test PKI's certificates point at loopback services that
    // may not run.
    verifier.setAIASource(null);
    verifier.setOcspSource(null);
    return verifier;
  }

  private static List<String> signerAliases(TestPki pki) {
    // DSS 6.4's server-signing token and its signature algorithms know no post-quantum key (a key
    // store refuses ML-DSA's OID).
    return pki.entities().stream()
        .filter(e -> e.role() == Role.SIGNER && !e.revoked() && !e.keyAlgorithm().isPostQuantum())
        .map(Entity::alias)
        .toList();
  }

  private static int freePort(String bind) throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(bind))) {
      return s.getLocalPort();
    }
  }

  /**
   * CXF logs each endpoint it publishes at INFO through java.util.logging: kept to warnings, held
   * so the setting stays.
   */
  private static final Logger CXF_LOG = Logger.getLogger("org.apache.cxf");

  @Override
  public void start() throws Exception {
    CXF_LOG.setLevel(Level.WARNING);
    bus = BusFactory.newInstance().createBus();
    JacksonJsonProvider json = new JacksonJsonProvider(DssJson.mapper());
    String root = "http://" + hostInUrl() + ":" + port + BASE_PATH;
    for (var e : endpoints.entrySet()) {
      JAXRSServerFactoryBean factory = new JAXRSServerFactoryBean();
      factory.setBus(bus);
      factory.setServiceBean(e.getValue());
      factory.setAddress(root + e.getKey());
      factory.setProviders(List.of(json, new IncidentMapper(log)));
      servers.add(factory.create());
    }
  }

  private String hostInUrl() {
    return bind.contains(":") ? "[" + bind + "]" : bind;
  }

  @Override
  public String baseUrl() {
    return "http://" + hostInUrl() + ":" + port + BASE_PATH;
  }

  @Override
  public String details() {
    return "signature "
        + BASE_PATH
        + SIGNATURE
        + ", validation "
        + BASE_PATH
        + VALIDATION
        + ", server signing "
        + BASE_PATH
        + SERVER_SIGNING
        + " ("
        + tokenKeys
        + " signer keys); DSS "
        + dssVersion()
        + " on CXF "
        + Version.getCurrentVersion();
  }

  /** DSS's version as its jar's Maven metadata states it (the shaded jar keeps those files). */
  static String dssVersion() {
    try (var in =
        DssServer.class.getResourceAsStream(
            "/META-INF/maven/eu.europa.ec.joinup.sd-dss/dss-signature-rest/pom.properties")) {
      if (in == null) return "(version unknown)";
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "(version unknown)");
    } catch (IOException e) {
      return "(version unknown)";
    }
  }

  @Override
  public void close() {
    for (Server s : servers) s.destroy();
    servers.clear();
    if (bus != null) bus.shutdown(true);
  }

  /**
   * A fault of DSS's while handling a request (a document it cannot sign, a certificate it refuses)
   * becomes a 500 carrying an incident id and DSS's message, the id and the cause going to the
   * service's log, as our own services answer; a client's error JAX-RS already answered (404, 415,
   * 400) keeps its status.
   */
  @Provider
  static final class IncidentMapper implements ExceptionMapper<Throwable> {
    private final Consumer<String> log;

    IncidentMapper(Consumer<String> log) {
      this.log = log;
    }

    @Override
    public Response toResponse(Throwable thrown) {
      if (thrown instanceof WebApplicationException w) return w.getResponse();
      if (thrown instanceof JacksonException j) {
        return Response.status(400)
            .type(MediaType.APPLICATION_JSON)
            .entity(Map.of("error", "invalid_json", "message", j.getOriginalMessage()))
            .build();
      }
      String incident = UUID.randomUUID().toString().substring(0, 8);
      log.accept("incident " + incident + ": " + thrown);
      return Response.status(500)
          .type(MediaType.APPLICATION_JSON)
          .entity(
              Map.of(
                  "error",
                  "dss_fault",
                  "incident",
                  incident,
                  "message",
                  String.valueOf(thrown.getMessage())))
          .build();
    }
  }
}
