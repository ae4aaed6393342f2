package io.pkibench.cli;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.dss.DssServer;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "dss",
    mixinStandardHelpOptions = true,
    header = "EU DSS's own REST services for signing and validation, wired to the test PKI.",
    description = {
      "EU DSS's own REST services (dss-signature-rest, dss-validation-rest, dss-server-signing-rest) on CXF, wired to the test PKI:",
      "its root trusted, its CRLs, its TSA for the -T levels, its signer keys in the server-signing token. DSS handles every request:",
      "/services/rest/signature/one-document/{getDataToSign|signDocument}, /services/rest/validation/validateSignature,",
      "/services/rest/server-signing/{keys|sign/ALIAS/DIGEST}."
    },
    footer = {
      "",
      "Example:",
      "  pkibench serve dss --port 8085",
      "  pkibench run dss:cades dss:pades dss:validate --target http://127.0.0.1:8085/services/rest --cpu pid:PID"
    })
final class ServeDss extends ServedService {
  @Option(
      names = "--port",
      defaultValue = "" + DssServer.DEFAULT_PORT,
      description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--keys",
      defaultValue = "software",
      paramLabel = "SOURCE",
      description =
          "where the TSA key and the server-signing keys live; the token holds key material, so software (default: ${DEFAULT-VALUE})")
  String keys;

  @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
  Path pinFile;

  @Override
  ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
    String keyProblem = KeySources.problem(keys);
    if (keyProblem != null) throw new ParameterException(serve.spec.commandLine(), keyProblem);
    TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
    KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
    try {
      return DssServer.forTestPki(testPki, source, bind, port, ctx.clock(), ctx.err()::println);
    } catch (GeneralSecurityException e) {
      source.close();
      throw new ParameterException(serve.spec.commandLine(), e.getMessage());
    }
  }

  @Override
  String what(ReferenceServer server) {
    return "EU DSS REST services at " + server.baseUrl();
  }
}
