package io.pkibench.cli;

import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.server.RevocationServer;
import io.pkibench.server.HttpEndpoints;
import io.pkibench.server.TsaServer;
import io.pkibench.workload.ades.TimeStampAuthority;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Runs a reference service alone, on loopback by default, until stopped (Ctrl-C).",
    subcommands = {ServeCommand.Signer.class, ServeCommand.Tsa.class, ServeCommand.Crl.class})
final class ServeCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "name a service: serve signer, serve tsa or serve crl");
  }

  /** Options every service takes. */
  abstract static class Service implements Callable<Integer> {
    @ParentCommand ServeCommand serve;

    @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
        description = "address to listen on (default: ${DEFAULT-VALUE}; anything else exposes the service beyond this machine)")
    String bind;

    @Option(names = "--pki", paramLabel = "DIR", description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path pki;

    abstract HttpEndpoints open(CliContext ctx, Path pkiDir) throws Exception;

    abstract String what(HttpEndpoints server);

    @Override
    public Integer call() throws Exception {
      CliContext ctx = serve.parent.context;
      Path pkiDir = ctx.pkiDir(pki);
      HttpEndpoints server = open(ctx, pkiDir);
      server.start();
      ctx.out().println(what(server) + " (pid " + ProcessHandle.current().pid() + "); Ctrl-C stops it");
      // For programs that start services (a study, a script): one line, fixed prefix, JSON.
      ctx.out().println(new io.pkibench.server.ReadyLine(serve.spec.commandLine().getParseResult().subcommand().commandSpec().name(),
          server.baseUrl(), ProcessHandle.current().pid()).format());
      ctx.out().flush();
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        server.close();
        stopped.countDown();
      }, "pkibench-serve-stop"));
      stopped.await();
      return ExitCodes.OK;
    }
  }

  @Command(name = "signer", mixinStandardHelpOptions = true,
      description = {"The two-phase signing service over HTTPS (test PKI's tls-server certificate):",
          "/api/signatures/{cades|cades-t|pades|pades-t|xades}/start and /{token}/finish, /api/auth/start and /{token}/finish, /api/timestamp."},
      footer = {"", "Example:", "  pkibench serve signer --port 8443",
          "  pkibench run http:cades --target https://127.0.0.1:8443 --concurrency 1..16"})
  static final class Signer extends Service {
    @Option(names = "--port", defaultValue = "" + io.pkibench.server.SignerServer.DEFAULT_PORT, description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--keys", defaultValue = "software", paramLabel = "SOURCE", description = "where the service's TSA key lives (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
    Path pinFile;

    @Option(names = "--revocation", defaultValue = "crl", paramLabel = "crl|crl-fetch|ocsp",
        description = "how logins check revocation: CRLs read once (crl), CRLs fetched at every login (crl-fetch) or OCSP (ocsp);"
            + " the last two need 'pkibench serve crl' (default: ${DEFAULT-VALUE})")
    String revocation;

    @Override
    HttpEndpoints open(CliContext ctx, Path pkiDir) throws Exception {
      io.pkibench.workload.ades.CertificateLogin.Revocation checked;
      try {
        checked = io.pkibench.workload.ades.CertificateLogin.Revocation.parse(revocation);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(serve.spec.commandLine(), "--revocation " + revocation + ": use crl, crl-fetch or ocsp");
      }
      TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
      KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
      // The TLS identity is not what is being sized: it always comes from the test PKI file, through the JDK.
      var tlsKey = new io.pkibench.keys.SoftwareKeySource(() -> testPki, io.pkibench.keys.ProviderChoice.JDK).key("tls-server");
      return new io.pkibench.server.SignerServer(new TimeStampAuthority(source.key("tsa"), ctx.clock()),
          io.pkibench.workload.ades.CertificateLogin.of(testPki, checked),
          io.pkibench.keys.TlsContexts.withIdentity(tlsKey, null), bind, port, ctx.clock());
    }

    @Override
    String what(HttpEndpoints server) {
      return "signing service listening on " + server.baseUrl();
    }
  }

  @Command(name = "tsa", mixinStandardHelpOptions = true,
      description = "RFC 3161 time-stamping over HTTP: POST application/timestamp-query to /tsa.",
      footer = {"", "Example:", "  pkibench serve tsa --port 18318",
          "  openssl ts -query -data doc.pdf -sha256 -cert -out q.tsq && curl -s --data-binary @q.tsq -H 'Content-Type: application/timestamp-query' http://127.0.0.1:18318/tsa > r.tsr"})
  static final class Tsa extends Service {
    @Option(names = "--port", defaultValue = "" + TsaServer.DEFAULT_PORT, description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--keys", defaultValue = "software", paramLabel = "SOURCE", description = "where the TSA key lives (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
    Path pinFile;

    @Override
    HttpEndpoints open(CliContext ctx, Path pkiDir) throws Exception {
      KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
      return new TsaServer(new TimeStampAuthority(source.key("tsa"), ctx.clock()), bind, port);
    }

    @Override
    String what(HttpEndpoints server) {
      return "TSA listening on " + ((TsaServer) server).url();
    }
  }

  @Command(name = "crl", mixinStandardHelpOptions = true,
      description = {"Serves the test PKI's revocation status where its certificates point: CRLs at /crl/CA.crl and an OCSP",
          "responder per CA at /ocsp/CA (RFC 6960, POST or GET), both from the same CRLs."},
      footer = {"", "Example:", "  pkibench serve crl        # http://127.0.0.1:18080/crl/intermediate-a.crl, http://127.0.0.1:18080/ocsp/intermediate-a",
          "  openssl ocsp -issuer ~/.pkibench/pki/intermediate-a.pem -cert ~/.pkibench/pki/signer-rsa2048-1.pem \\",
          "    -url http://127.0.0.1:18080/ocsp/intermediate-a -CAfile ~/.pkibench/pki/root-ca.pem"})
  static final class Crl extends Service {
    @Option(names = "--port", defaultValue = "" + RevocationServer.DEFAULT_PORT, description = "TCP port (default: ${DEFAULT-VALUE}, the port in the certificates)")
    int port;

    @Override
    HttpEndpoints open(CliContext ctx, Path pkiDir) throws Exception {
      return new RevocationServer(TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println), bind, port);
    }

    @Override
    String what(HttpEndpoints server) {
      return "CRLs served at " + server.baseUrl() + "/crl/CA.crl, OCSP at " + server.baseUrl() + "/ocsp/CA";
    }
  }
}
