package io.pkibench.server;

import io.pkibench.pki.Entity;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

/**
 * Serves the test PKI's CRLs at their distribution points, {@code GET /crl/CA.crl} (DER,
 * {@code application/pkix-crl}). The bytes are read once at start: a CRL fetch costs the server no disk I/O.
 */
public final class CrlServer extends HttpEndpoints {
  /** The port of {@link TestPki#DEFAULT_CRL_BASE_URL}. */
  public static final int DEFAULT_PORT = 18080;
  private final Map<String, byte[]> crls = new HashMap<>();

  public CrlServer(TestPki pki, String bindAddress, int port) throws IOException {
    super(bindAddress, port);
    for (Entity ca : pki.entities()) {
      if (ca.isCa()) crls.put("/crl/" + ca.alias() + ".crl", Files.readAllBytes(pki.crl(ca.alias())));
    }
    route("/crl/", exchange -> {
      if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        refuse(exchange, 405, "GET a CRL, e.g. /crl/intermediate-a.crl");
        return;
      }
      byte[] crl = crls.get(exchange.getRequestURI().getPath());
      if (crl == null) {
        refuse(exchange, 404, "no such CRL; this server has " + String.join(", ", crls.keySet().stream().sorted().toList()));
        return;
      }
      exchange.getResponseHeaders().set("Cache-Control", "max-age=300");
      send(exchange, 200, "application/pkix-crl", exchange.getRequestMethod().equals("HEAD") ? new byte[0] : crl);
    });
  }
}
