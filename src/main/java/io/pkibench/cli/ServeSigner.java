package io.pkibench.cli;

import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.HttpTimeStampResponder;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.PemKeys;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.signer.SignerServer;
import io.pkibench.workload.api.Reachability;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "signer",
    mixinStandardHelpOptions = true,
    header = "The two-phase signing service (CAdES, PAdES, XAdES, login, time-stamp) over HTTPS.",
    description = {
      "The two-phase signing service over HTTPS (test PKI's tls-server certificate):",
      "/api/signatures/{cades|cades-t|pades|pades-t|xades}/start and /{token}/finish, /api/auth/start and /{token}/finish, /api/timestamp."
    },
    footer = {
      "",
      "Example:",
      "  pkibench serve signer --port 8443",
      "  pkibench run http:cades --target https://127.0.0.1:8443 --concurrency 1..16",
      "  pkibench serve signer --tsa http://tsa.example:318/ --tsa-trust tsa-chain.pem   # B-T time-stamps from an outside TSA"
    })
final class ServeSigner extends ServedService {
  @Option(
      names = "--port",
      defaultValue = "" + SignerServer.DEFAULT_PORT,
      description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--keys",
      defaultValue = "software",
      paramLabel = "SOURCE",
      description = "where the service's TSA key lives (default: ${DEFAULT-VALUE})")
  String keys;

  @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
  Path pinFile;

  @Option(
      names = "--revocation",
      defaultValue = "crl",
      paramLabel = "crl|crl-fetch|ocsp",
      description =
          "how logins check revocation: CRLs read once (crl), CRLs fetched at every login (crl-fetch) or OCSP (ocsp);"
              + " the last two need 'pkibench serve crl' (default: ${DEFAULT-VALUE})")
  String revocation;

  @Option(
      names = "--tsa",
      paramLabel = "URL",
      description =
          "an outside RFC 3161 TSA for the B-T signatures and /api/timestamp, instead of"
              + " the service's own (the test PKI's tsa key); each token is checked (nonce, imprint, and --tsa-trust)")
  String tsa;

  @Option(
      names = "--tsa-trust",
      paramLabel = "PEM",
      description = "with --tsa: the TSA's chain; each token's signature is verified against it")
  Path tsaTrust;

  @Override
  ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
    CertificateLogin.Revocation checked;
    try {
      checked = CertificateLogin.Revocation.parse(revocation);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          serve.spec.commandLine(), "--revocation " + revocation + ": use crl, crl-fetch or ocsp");
    }
    TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
    if (tsa != null)
      return SignerServer.forTestPki(
          testPki, outsideTsa(ctx), tsaCheck(ctx), checked, bind, port, ctx.clock());
    KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
    return SignerServer.forTestPki(testPki, source, checked, bind, port, ctx.clock());
  }

  private HttpTimeStampResponder outsideTsa(CliContext ctx) {
    FlagProblems problems = new FlagProblems();
    Reachability.problem("--tsa", tsa, "start the TSA or correct the URL").ifPresent(problems::add);
    problems.throwIfAny(serve.spec.commandLine());
    return new HttpTimeStampResponder(URI.create(tsa));
  }

  private TimeStampCheck tsaCheck(CliContext ctx) {
    if (tsaTrust == null) {
      ctx.err()
          .println(
              "note: the time-stamps of --tsa "
                  + tsa
                  + " are not verified (no --tsa-trust); status, nonce and imprint are checked");
      return new TimeStampCheck(null);
    }
    try {
      return new TimeStampCheck(
          CertificateTrust.of(PemKeys.certificates(Files.readAllBytes(ctx.resolve(tsaTrust)))));
    } catch (IOException | IllegalArgumentException e) {
      throw new ParameterException(
          serve.spec.commandLine(),
          "--tsa-trust " + tsaTrust + ": " + e.getMessage() + "; give the TSA's chain as PEM");
    }
  }

  @Override
  String what(ReferenceServer server) {
    return "signing service listening on " + server.baseUrl();
  }
}
