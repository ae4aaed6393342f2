package io.pkibench.cli;

import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.crl.RevocationServer;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "crl",
    mixinStandardHelpOptions = true,
    header =
        "Serves the test PKI's CRLs and an OCSP responder per CA where its certificates point.",
    description = {
      "Serves the test PKI's revocation status where its certificates point: CRLs at /crl/CA.crl and an OCSP",
      "responder per CA at /ocsp/CA (RFC 6960, POST or GET), both from the same CRLs."
    },
    footer = {
      "",
      "Example:",
      "  pkibench serve crl        # http://127.0.0.1:18080/crl/intermediate-a.crl, http://127.0.0.1:18080/ocsp/intermediate-a",
      "  openssl ocsp -issuer ~/.pkibench/pki/intermediate-a.pem -cert ~/.pkibench/pki/signer-rsa2048-1.pem \\",
      "    -url http://127.0.0.1:18080/ocsp/intermediate-a -CAfile ~/.pkibench/pki/root-ca.pem"
    })
final class ServeCrl extends ServedService {
  @Option(
      names = "--port",
      defaultValue = "" + RevocationServer.DEFAULT_PORT,
      description = "TCP port (default: ${DEFAULT-VALUE}, the port in the certificates)")
  int port;

  @Override
  ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
    return new RevocationServer(
        TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println), bind, port);
  }

  @Override
  String what(ReferenceServer server) {
    return "CRLs served at "
        + server.baseUrl()
        + "/crl/CA.crl, OCSP at "
        + server.baseUrl()
        + "/ocsp/CA";
  }
}
