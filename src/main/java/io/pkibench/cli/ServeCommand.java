package io.pkibench.cli;

import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.HttpTimeStampResponder;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.TestProviders;
import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.InputFiles;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.server.HttpEndpoints;
import io.pkibench.server.ReadyLine;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.crl.RevocationServer;
import io.pkibench.server.dss.DssServer;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.server.nginx.NginxPeer;
import io.pkibench.server.pec.PecServer;
import io.pkibench.server.pec.SmtpLimits;
import io.pkibench.server.signer.SignerServer;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.server.tsa.TsaServer;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Reachability;
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
    subcommands = {
      ServeCommand.Signer.class,
      ServeCommand.Tsa.class,
      ServeCommand.Crl.class,
      ServeCommand.TlsEcho.class,
      ServeCommand.Nginx.class,
      ServeCommand.KeyServerNode.class,
      ServeCommand.Pec.class,
      ServeCommand.Dss.class
    })
final class ServeCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "name a service: serve signer, serve tsa, serve crl, serve tlsecho, serve nginx, serve keyserver, serve pec or serve dss");
  }

  /** Options every service takes. */
  abstract static class Service implements Callable<Integer> {
    @ParentCommand ServeCommand serve;

    @Option(
        names = "--bind",
        defaultValue = "127.0.0.1",
        paramLabel = "ADDRESS",
        description =
            "address to listen on (default: ${DEFAULT-VALUE}; anything else exposes the service beyond this machine)")
    String bind;

    @Option(
        names = "--pki",
        paramLabel = "DIR",
        description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path pki;

    abstract ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception;

    abstract String what(ReferenceServer server);

    @Override
    public Integer call() throws Exception {
      CliContext ctx = serve.parent.context;
      Path pkiDir = ctx.pkiDir(pki);
      ReferenceServer server = null;
      try {
        server = open(ctx, pkiDir);
        if (server instanceof HttpEndpoints http)
          http.logTo(line -> ctx.err().println(line)); // internal errors, by incident id
        server.start();
      } catch (Exception thrown) {
        if (server != null) server.close(); // whatever it started before failing to listen
        // the libraries wrap it (SubEthaSMTP in a RuntimeException, gRPC in an IOException): look
        // down the causes
        // (netty's native transport says it in an IOException of its own)
        Throwable e = null;
        for (Throwable t = thrown; t != null && e == null; t = t.getCause()) {
          if (t instanceof java.net.BindException
              || String.valueOf(t.getMessage())
                  .toLowerCase(java.util.Locale.ROOT)
                  .contains("address already in use")) e = t;
        }
        if (e == null) throw thrown;
        var parsed = serve.spec.commandLine().getParseResult().subcommand();
        Object port =
            parsed.matchedOptionValue(
                "--port", parsed.commandSpec().findOption("--port").getValue());
        throw new ParameterException(
            serve.spec.commandLine(),
            "--port "
                + port
                + ": cannot listen on "
                + bind
                + ":"
                + port
                + " (address already in use); give another port, or --port 0 for any free one");
      }
      ReferenceServer running = server;
      String details = running.details().isEmpty() ? "" : "; " + running.details();
      ctx.out().println(what(running) + details + " (pid " + running.pid() + "); Ctrl-C stops it");
      // For programs that start services (a study, a script): one line, fixed prefix, JSON.
      ctx.out()
          .println(
              new ReadyLine(
                      serve.spec.commandLine().getParseResult().subcommand().commandSpec().name(),
                      running.baseUrl(),
                      running.pid())
                  .format());
      ctx.out().flush();
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    running.close();
                    stopped.countDown();
                  },
                  "pkibench-serve-stop"));
      stopped.await();
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "signer",
      mixinStandardHelpOptions = true,
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
  static final class Signer extends Service {
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
            serve.spec.commandLine(),
            "--revocation " + revocation + ": use crl, crl-fetch or ocsp");
      }
      TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
      if (tsa != null)
        return SignerServer.forTestPki(
            testPki, outsideTsa(ctx), tsaCheck(ctx), checked, bind, port, ctx.clock());
      KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
      return SignerServer.forTestPki(testPki, source, checked, bind, port, ctx.clock());
    }

    private HttpTimeStampResponder outsideTsa(CliContext ctx) {
      java.util.List<String> problems = new java.util.ArrayList<>();
      Reachability.problem("--tsa", tsa, "start the TSA or correct the URL")
          .ifPresent(problems::add);
      if (!problems.isEmpty())
        throw new ParameterException(serve.spec.commandLine(), String.join("\n", problems));
      return new HttpTimeStampResponder(java.net.URI.create(tsa));
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
            CertificateTrust.of(
                PemKeys.certificates(java.nio.file.Files.readAllBytes(ctx.resolve(tsaTrust)))));
      } catch (java.io.IOException | IllegalArgumentException e) {
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

  @Command(
      name = "tsa",
      mixinStandardHelpOptions = true,
      description = "RFC 3161 time-stamping over HTTP: POST application/timestamp-query to /tsa.",
      footer = {
        "",
        "Example:",
        "  pkibench serve tsa --port 18318",
        "  openssl ts -query -data doc.pdf -sha256 -cert -out q.tsq && curl -s --data-binary @q.tsq -H 'Content-Type: application/timestamp-query' http://127.0.0.1:18318/tsa > r.tsr"
      })
  static final class Tsa extends Service {
    @Option(
        names = "--port",
        defaultValue = "" + TsaServer.DEFAULT_PORT,
        description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
        names = "--keys",
        defaultValue = "software",
        paramLabel = "SOURCE",
        description = "where the TSA key lives (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
    Path pinFile;

    @Override
    ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
      KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
      return new TsaServer(new TimeStampAuthority(source.key("tsa"), ctx.clock()), bind, port);
    }

    @Override
    String what(ReferenceServer server) {
      return "TSA listening on " + ((TsaServer) server).url();
    }
  }

  @Command(
      name = "crl",
      mixinStandardHelpOptions = true,
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
  static final class Crl extends Service {
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

  @Command(
      name = "tlsecho",
      mixinStandardHelpOptions = true,
      description = {
        "Netperf-style transactions over TLS and plain TCP (RR: request/response on a kept connection; ACRR:",
        "connect, full handshake, request, response, close; Stream: 16 KB sends acknowledged in bulk). TLS on --port, plain",
        "TCP on --plain-port; the server's key is the test PKI's tls-server-KEY certificate."
      },
      footer = {
        "",
        "Example:",
        "  pkibench serve tlsecho --port 8444 --tls openssl --key rsa2048",
        "  pkibench serve tlsecho --port 8444 --tls openssl --groups X25519MLKEM768,x25519   # the hybrid post-quantum key exchange",
        "  pkibench run tls-rr -p size=128 --target tls://127.0.0.1:8444 --cpu pid:PID --concurrency 1..32",
        "  pkibench run tls-stream -p size=16k --target tcp://127.0.0.1:8445",
        "  openssl s_client -connect 127.0.0.1:8444 -CAfile ~/.pkibench/pki/root-ca.pem",
        "  pkibench serve tlsecho --port 8444 --client-auth need     # mutual TLS: clients of the test PKI only",
        "  pkibench run tls-rr --target tls://127.0.0.1:8444 -p client=tls-client --keys remote:127.0.0.1:9443"
      })
  static final class TlsEcho extends Service {
    @Option(
        names = "--port",
        defaultValue = "" + TlsEchoServer.DEFAULT_PORT,
        description =
            "TLS port (plain TCP with --tls none), 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
        names = "--plain-port",
        paramLabel = "PORT",
        description = "plain TCP port beside TLS (default: --port + 1; 0 any free one; -1 none)")
    Integer plainPort;

    @Option(
        names = "--tls",
        defaultValue = "auto",
        paramLabel = "jsse|openssl|none|auto",
        description =
            "TLS engine: the JDK's JSSE or BoringSSL via netty-tcnative; none serves plain TCP only; auto: openssl with --groups"
                + " (the hybrid groups are BoringSSL's), else jsse (default: ${DEFAULT-VALUE})")
    String engine;

    @Option(
        names = "--key",
        defaultValue = "rsa2048",
        paramLabel = "rsa1024|rsa2048|ecdsa-p256",
        description = "the server certificate's key (default: ${DEFAULT-VALUE})")
    String key;

    @Option(
        names = "--protocols",
        split = ",",
        paramLabel = "P,…",
        description = "TLS versions to enable, e.g. TLSv1.3,TLSv1.2 (default: the engine's)")
    java.util.List<String> protocols = new java.util.ArrayList<>();

    @Option(
        names = "--suites",
        split = ",",
        paramLabel = "S,…",
        description =
            "cipher suites to enable, IANA names, e.g. TLS_AES_128_GCM_SHA256 (default: the engine's)")
    java.util.List<String> suites = new java.util.ArrayList<>();

    @Option(
        names = "--groups",
        split = ",",
        paramLabel = "G,…",
        description =
            "key-exchange groups accepted, in order, e.g. X25519MLKEM768,x25519 (BoringSSL: --tls openssl, chosen by default with it;"
                + " default: the engine's)")
    java.util.List<String> groups = new java.util.ArrayList<>();

    @Option(
        names = "--idle-timeout",
        defaultValue = "30s",
        paramLabel = "DURATION",
        description = "close a connection that sends nothing this long (default: ${DEFAULT-VALUE})")
    String idleTimeout;

    @Option(
        names = "--max-connections",
        defaultValue = "10000",
        description = "refuse connections past this many open (default: ${DEFAULT-VALUE})")
    int maxConnections;

    @Option(
        names = "--frame-deadline",
        defaultValue = "30s",
        paramLabel = "DURATION",
        description =
            "a request must arrive whole this soon after its first byte, however it trickles (default: ${DEFAULT-VALUE})")
    String frameDeadline;

    @Option(
        names = "--client-auth",
        defaultValue = "none",
        paramLabel = "none|want|need",
        description =
            "ask the client for a certificate chaining to the test PKI's root: want takes a connection without one, need refuses it (default: ${DEFAULT-VALUE})")
    String clientAuth;

    @Option(
        names = "--max-connections-per-address",
        defaultValue = "1000",
        paramLabel = "N",
        description =
            "refuse connections from one IP address past this many open (default: ${DEFAULT-VALUE})")
    int maxPerAddress;

    @Override
    ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
      java.util.List<String> problems = new java.util.ArrayList<>();
      java.time.Duration idle = java.time.Duration.ZERO;
      try {
        idle = Durations.parse(idleTimeout);
      } catch (IllegalArgumentException e) {
        problems.add("--idle-timeout " + idleTimeout + ": " + e.getMessage());
      }
      java.time.Duration frame = java.time.Duration.ofSeconds(1);
      try {
        frame = Durations.parse(frameDeadline);
        if (frame.toMillis() < 100)
          problems.add("--frame-deadline " + frameDeadline + ": give at least 100ms, e.g. 30s");
      } catch (IllegalArgumentException e) {
        problems.add("--frame-deadline " + frameDeadline + ": " + e.getMessage());
      }
      if (maxPerAddress < 1)
        problems.add("--max-connections-per-address " + maxPerAddress + ": give at least 1");
      String chosen = engine.equals("auto") ? (groups.isEmpty() ? "jsse" : "openssl") : engine;
      var config =
          new TlsEchoServer.Config(
              bind,
              port,
              plainPort,
              chosen,
              key,
              protocols,
              suites,
              new TlsEchoServer.Limits(
                  idle, java.time.Duration.ofSeconds(10), maxConnections, frame, maxPerAddress),
              clientAuth,
              groups);
      problems.addAll(config.problems());
      if (!problems.isEmpty())
        throw new ParameterException(serve.spec.commandLine(), String.join("\n", problems));
      TestPki testPki =
          config.engine().equals("none")
              ? null
              : TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
      return TlsEchoServer.open(config, testPki, ctx.err()::println);
    }

    @Override
    String what(ReferenceServer server) {
      return "echo transactions at " + server.baseUrl();
    }
  }

  @Command(
      name = "nginx",
      mixinStandardHelpOptions = true,
      description = {
        "Debian's nginx as the like-for-like peer of tlsecho's HTTP answers: a configuration generated into --dir (loopback, the test",
        "PKI's tls-server-KEY certificate, the versions and OpenSSL ciphers given, static files /bytes/N for --sizes, POST /sink answered with",
        "the body's byte count), nginx in the foreground with --workers worker processes; its pid (the ready line's) is the master's, and",
        "a study charges it with its workers."
      },
      footer = {
        "",
        "Example:",
        "  pkibench serve nginx --port 8453 --dir nginx-run --workers 2 --sizes 128,8192",
        "  pkibench run https-rr --target https://127.0.0.1:8453/bytes/128 -p expect-bytes=128 --cpu pid:MASTER+WORKER…"
      })
  static final class Nginx extends Service {
    @Option(
        names = "--port",
        defaultValue = "8453",
        description = "TLS port (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
        names = "--dir",
        required = true,
        paramLabel = "DIR",
        description = "where the configuration, pid file, logs and static files go")
    Path dir;

    @Option(
        names = "--key",
        defaultValue = "rsa2048",
        paramLabel = "rsa1024|rsa2048|ecdsa-p256",
        description = "the server certificate's key (default: ${DEFAULT-VALUE})")
    String key;

    @Option(
        names = "--protocols",
        split = ",",
        paramLabel = "P,…",
        description = "TLS versions, e.g. TLSv1.2,TLSv1.3 (default: nginx's)")
    java.util.List<String> protocols = new java.util.ArrayList<>();

    @Option(
        names = "--ciphers",
        split = ",",
        paramLabel = "C,…",
        description = "OpenSSL cipher names, e.g. ECDHE-RSA-AES128-GCM-SHA256 (default: nginx's)")
    java.util.List<String> ciphers = new java.util.ArrayList<>();

    @Option(
        names = "--workers",
        defaultValue = "1",
        description = "nginx worker processes (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(
        names = "--sizes",
        split = ",",
        defaultValue = "128,8192",
        paramLabel = "N,…",
        description = "bytes of the static files /bytes/N (default: ${DEFAULT-VALUE})")
    java.util.List<Integer> sizes;

    @Option(
        names = "--worker-connections",
        defaultValue = "" + NginxPeer.Config.DEFAULT_WORKER_CONNECTIONS,
        paramLabel = "N",
        description =
            "connections each worker holds at once, nginx's worker_connections (default: ${DEFAULT-VALUE}); more asks for as many open files")
    int workerConnections;

    @Option(
        names = "--client-auth",
        defaultValue = "none",
        paramLabel = "none|need",
        description =
            "need: nginx's ssl_verify_client on, clients of the test PKI only (default: ${DEFAULT-VALUE})")
    String clientAuth;

    @Override
    ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
      java.util.List<String> problems = new java.util.ArrayList<>();
      if (NginxPeer.problem() != null) problems.add(NginxPeer.problem());
      if (!bind.equals("127.0.0.1"))
        problems.add("--bind " + bind + ": the nginx peer listens on loopback only");
      if (workers < 1) problems.add("--workers " + workers + ": give at least 1");
      if (workerConnections < 16 || workerConnections > 1_000_000)
        problems.add("--worker-connections " + workerConnections + ": give 16 to 1000000");
      if (!TlsServerKeys.ALIASES.containsKey(key)) {
        problems.add(
            "--key " + key + ": use one of " + String.join(", ", TlsServerKeys.ALIASES.keySet()));
      }
      if (sizes.stream().anyMatch(n -> n < 0 || n > (64 << 20)))
        problems.add("--sizes: each from 0 to 64m bytes");
      if (!clientAuth.equals("none") && !clientAuth.equals("need"))
        problems.add("--client-auth " + clientAuth + ": use none or need");
      if (!problems.isEmpty())
        throw new ParameterException(serve.spec.commandLine(), String.join("\n", problems));
      TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
      Path run = ctx.resolve(dir);
      java.nio.file.Files.createDirectories(run);
      Path chain = run.resolve("chain.pem"), keyPem = run.resolve("key.pem");
      NginxPeer.writeIdentity(TlsServerKeys.of(testPki, key), chain, keyPem);
      return new NginxPeer(
          run,
          new NginxPeer.Config(
              port,
              chain,
              keyPem,
              clientAuth.equals("need") ? testPki.caChainPem() : null,
              protocols,
              ciphers,
              workers,
              sizes,
              workerConnections));
    }

    @Override
    String what(ReferenceServer server) {
      return "nginx at " + server.baseUrl();
    }
  }

  @Command(
      name = "keyserver",
      mixinStandardHelpOptions = true,
      description = {
        "A key-server node: gRPC over mutual TLS (contract pkibench.keyserver.v1, src/main/proto) that signs, RSA-decrypts",
        "and hands out certificate chains with the keys of --keys, which never leave it. Its identity is the test PKI's",
        "keyserver certificate; clients must present a certificate of the test PKI, and --grants says which keys each may use",
        "(default: the test PKI's tls-client may use the signer-* keys and its own tls-client key); a revoked client certificate",
        "(the test PKI's CRLs) fails the handshake. Health: the standard grpc.health.v1 service."
      },
      footer = {
        "",
        "Example:",
        "  pkibench serve keyserver --port 9443 --keys software",
        "  pkibench serve keyserver --port 9444 --keys pkcs11:softhsm.cfg --pin-file pin.txt",
        "  pkibench run sign -p alg=rsa2048 --keys remote:127.0.0.1:9443=50,127.0.0.1:9444=50 --concurrency 1..64",
        "",
        "A grants file, one line per client:",
        "  sha256=<64 hex digits of the client certificate's fingerprint>: signer-*, tls-client",
        "  cn=pkibench tls-client: signer-rsa2048-*"
      })
  static final class KeyServerNode extends Service {
    @Option(
        names = "--port",
        defaultValue = "" + KeyServer.DEFAULT_PORT,
        description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
        names = "--keys",
        defaultValue = "software",
        paramLabel = "SOURCE",
        description =
            "where the node's keys live: software[:accp|jdk|bc] or pkcs11:CONFIG (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
    Path pinFile;

    @Option(
        names = "--aliases",
        split = ",",
        paramLabel = "ALIAS,…",
        description = "the keys this node serves (default: every key of --keys)")
    java.util.List<String> aliases = new java.util.ArrayList<>();

    @Option(
        names = "--grants",
        paramLabel = "FILE",
        description = "which client certificate may use which keys (see below)")
    Path grants;

    @Option(
        names = "--threads",
        paramLabel = "N",
        description = "threads doing the key operations (default: one per core)")
    Integer threads;

    @Option(
        names = "--max-request",
        defaultValue = "1m",
        paramLabel = "SIZE",
        description = "largest request accepted, e.g. 64k or 4m (default: ${DEFAULT-VALUE})")
    String maxRequest;

    @Option(
        names = "--idle-timeout",
        defaultValue = "5m",
        paramLabel = "DURATION",
        description =
            "a connection with no call for this long is closed (default: ${DEFAULT-VALUE})")
    String idleTimeout;

    @Option(
        names = "--max-calls-per-connection",
        defaultValue = "" + KeyServer.Limits.DEFAULT_MAX_CALLS_PER_CONNECTION,
        paramLabel = "N",
        description =
            "calls in flight on one connection; a client's further calls wait on its side (default: ${DEFAULT-VALUE})")
    int maxCalls;

    @Option(
        names = "--ca-codes",
        paramLabel = "FILE",
        description =
            "RSFN CA codes (C10/C12) by issuer, one 'CODE = ISSUER TEXT' a line, before the defaults")
    Path caCodes;

    @Override
    ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
      java.util.List<String> problems = new java.util.ArrayList<>();
      CaCodes codes = CaCodes.defaults();
      if (caCodes != null) {
        try {
          codes = CaCodes.read(ctx.resolve(caCodes));
        } catch (java.io.IOException e) {
          problems.add("--ca-codes " + caCodes + ": cannot read it (" + e.getMessage() + ")");
        } catch (IllegalArgumentException e) {
          problems.add("--ca-codes " + caCodes + ":\n" + e.getMessage());
        }
      }
      String keyProblem = KeySources.problem(keys);
      if (keyProblem != null) problems.add(keyProblem);
      else if (keys.startsWith("remote:"))
        problems.add(
            "--keys "
                + keys
                + ": a key server holds its keys itself; use software or pkcs11:CONFIG");
      int maxRequestBytes = Params.parseBytes(maxRequest);
      if (maxRequestBytes < 1024)
        problems.add(
            "--max-request " + maxRequest + ": write a size of at least 1k, like 64k or 4m");
      java.time.Duration idle = null;
      try {
        idle = Durations.parse(idleTimeout);
      } catch (IllegalArgumentException e) {
        problems.add("--idle-timeout " + idleTimeout + ": " + e.getMessage());
      }
      if (threads != null && (threads < 1 || threads > 4096))
        problems.add("--threads " + threads + ": give 1 to 4096");
      if (maxCalls < 1 || maxCalls > 100_000)
        problems.add("--max-calls-per-connection " + maxCalls + ": give 1 to 100000");
      Path grantsFile = grants == null ? null : ctx.resolve(grants);
      if (grantsFile != null && !java.nio.file.Files.isReadable(grantsFile))
        problems.add("--grants " + grants + ": no such readable file");
      if (!problems.isEmpty())
        throw new ParameterException(serve.spec.commandLine(), String.join("\n", problems));

      var limits =
          new KeyServer.Limits(
              maxRequestBytes,
              java.time.Duration.ofSeconds(10),
              idle,
              threads != null ? threads : Runtime.getRuntime().availableProcessors(),
              maxCalls);
      var config = new KeyServer.Config(bind, port, aliases, grantsFile, codes, limits);
      TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
      KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
      try {
        return KeyServer.open(config, testPki, source, ctx.clock(), ctx.err()::println);
      } catch (IllegalArgumentException e) {
        source.close();
        throw new ParameterException(serve.spec.commandLine(), e.getMessage());
      }
    }

    @Override
    String what(ReferenceServer server) {
      return "key server listening on " + server.baseUrl();
    }
  }

  @Command(
      name = "pec",
      mixinStandardHelpOptions = true,
      description = {
        "A certified e-mail (PEC) provider over SMTP in the roles of RFC 6109: a user of --domain submits a message and gets",
        "a signed acceptance receipt while the signed transport envelope goes to the recipient's provider (--peer); mail",
        "arriving for --domain is verified against the provider index, taken in charge and delivered with signed receipts.",
        "A message is acknowledged (250) only once it is fsynced in --spool; a provider killed and restarted finishes every",
        "acknowledged message exactly once. Mailboxes are Maildirs under --mailboxes, one per address."
      },
      footer = {
        "",
        "Example (two providers mailing each other):",
        "  pkibench serve pec --domain pec1.test --port 2525 --peer pec2.test=127.0.0.1:2526 --spool s1 --mailboxes m1 &",
        "  pkibench serve pec --domain pec2.test --port 2526 --peer pec1.test=127.0.0.1:2525 --spool s2 --mailboxes m2 &",
        "  pkibench pec send --from user1@pec1.test --to user1@pec2.test --via 127.0.0.1:2525 --count 100 --size 60k",
        "  pkibench pec check --mailboxes m1,m2 --sent sent.jsonl",
        "",
        "Without --index, the providers pec1.test and pec2.test of the test PKI (keys signer-rsa2048-1 and -2) know each other."
      })
  static final class Pec extends Service {
    @Option(
        names = "--port",
        defaultValue = "2525",
        description = "SMTP port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
        names = "--domain",
        required = true,
        paramLabel = "DOMAIN",
        description = "the mail domain this provider serves, e.g. pec1.test")
    String domain;

    @Option(
        names = "--peer",
        paramLabel = "DOMAIN=HOST:PORT",
        description = "where another provider takes mail (repeat for more)")
    java.util.Map<String, String> peers = new java.util.LinkedHashMap<>();

    @Option(
        names = "--workers",
        defaultValue = "4",
        paramLabel = "N",
        description = "threads doing the provider's work (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(
        names = "--spool",
        paramLabel = "DIR",
        description = "the durable spool; put it on the disk to size (default: ./pec-spool/DOMAIN)")
    Path spool;

    @Option(
        names = "--mailboxes",
        paramLabel = "DIR",
        description = "the users' Maildirs (default: ./pec-mailboxes/DOMAIN)")
    Path mailboxes;

    @Option(
        names = "--index",
        paramLabel = "FILE",
        description =
            "the provider index: 'provider: DOMAIN' lines, each before its PEM certificate (default: the test PKI's pec1.test and pec2.test)")
    Path index;

    @Option(
        names = "--keys",
        defaultValue = "software",
        paramLabel = "SOURCE",
        description =
            "where the provider's key lives: software, pkcs11:CONFIG or remote:… (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(
        names = "--key",
        paramLabel = "ALIAS",
        description =
            "the provider's signing key (default: signer-rsa2048-1 for pec1.test, signer-rsa2048-2 for pec2.test)")
    String key;

    @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN")
    Path pinFile;

    @Option(
        names = "--name",
        paramLabel = "TEXT",
        description = "the provider's name in daticert.xml (gestore-emittente)")
    String name;

    @Option(
        names = "--max-message",
        defaultValue = "32m",
        paramLabel = "SIZE",
        description = "largest message taken, e.g. 32m (default: ${DEFAULT-VALUE})")
    String maxMessage;

    @Option(
        names = "--max-recipients",
        defaultValue = "100",
        paramLabel = "N",
        description = "recipients per message (default: ${DEFAULT-VALUE})")
    int maxRecipients;

    @Option(
        names = "--max-connections",
        defaultValue = "200",
        paramLabel = "N",
        description = "SMTP connections at once (default: ${DEFAULT-VALUE})")
    int maxConnections;

    @Option(
        names = "--idle-timeout",
        defaultValue = "60s",
        paramLabel = "DURATION",
        description = "an SMTP client silent this long is disconnected (default: ${DEFAULT-VALUE})")
    String idleTimeout;

    @Option(
        names = "--command-deadline",
        defaultValue = "60s",
        paramLabel = "DURATION",
        description =
            "a client must send its next command (or line of a message) this soon after our reply, however it trickles it (default: ${DEFAULT-VALUE})")
    String commandDeadline;

    @Option(
        names = "--transaction-deadline",
        defaultValue = "10m",
        paramLabel = "DURATION",
        description =
            "a connection must get a message through this soon after it opened or its last message (default: ${DEFAULT-VALUE})")
    String transactionDeadline;

    @Option(
        names = "--max-connections-per-address",
        defaultValue = "100",
        paramLabel = "N",
        description = "SMTP connections at once from one IP address (default: ${DEFAULT-VALUE})")
    int maxPerAddress;

    @Option(
        names = "--relay-deadline",
        defaultValue = "24h",
        paramLabel = "DURATION",
        description =
            "mail a peer has not taken this long after it was processed (no route, peer down) is given up: its sender gets a non-delivery notice (default: ${DEFAULT-VALUE})")
    String relayDeadline;

    @Option(
        names = "--users",
        split = ",",
        paramLabel = "NAME,…",
        description =
            "the local parts of --domain that have a mailbox (default: the test users user1 … user9)")
    java.util.List<String> users;

    @Option(
        names = "--users-file",
        paramLabel = "FILE",
        description =
            "the local parts that have a mailbox, one a line (# comments), instead of --users")
    Path usersFile;

    @Option(
        names = "--zone",
        paramLabel = "ZONE",
        description =
            "the time zone the provider's documents state times in (default: Europe/Rome, Italy's)")
    java.time.ZoneId timeZone = TestProviders.ZONE;

    @Override
    ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
      java.util.List<String> problems = new java.util.ArrayList<>();
      int maxBytes = Params.parseBytes(maxMessage);
      if (maxBytes < 0) problems.add("--max-message " + maxMessage + ": write a size, like 32m");
      java.time.Duration idle = java.time.Duration.ZERO;
      try {
        idle = Durations.parse(idleTimeout);
      } catch (IllegalArgumentException e) {
        problems.add("--idle-timeout " + idleTimeout + ": " + e.getMessage());
      }
      String d = domain.toLowerCase(java.util.Locale.ROOT);
      Path spoolDir = ctx.resolve(spool != null ? spool : Path.of("pec-spool", d));
      Path boxes = ctx.resolve(mailboxes != null ? mailboxes : Path.of("pec-mailboxes", d));
      java.util.Set<String> mailUsers = mailUsers(ctx, problems);
      java.time.Duration commandTime = positive("--command-deadline", commandDeadline, problems);
      java.time.Duration transactionTime =
          positive("--transaction-deadline", transactionDeadline, problems);
      java.time.Duration relay = positive("--relay-deadline", relayDeadline, problems);
      var config =
          PecServer.Config.builder(d, spoolDir, boxes)
              .bind(bind)
              .port(port)
              .peers(peers)
              .workers(workers)
              .users(mailUsers)
              .relayDeadline(relay)
              .limits(
                  SmtpLimits.DEFAULTS
                      .withMaxMessageBytes(maxBytes)
                      .withMaxRecipients(maxRecipients)
                      .withMaxConnections(maxConnections)
                      .withIdleTimeout(idle)
                      .withCommandDeadline(commandTime)
                      .withTransactionDeadline(transactionTime)
                      .withMaxConnectionsPerAddress(maxPerAddress))
              .build();
      problems.addAll(config.problems());
      String alias = key != null ? key : TestProviders.keyOf(d).orElse(null);
      if (alias == null)
        problems.add(
            "--key: name the provider's signing key for "
                + d
                + " (only pec1.test and pec2.test have defaults)");
      String keyProblem = KeySources.problem(keys);
      if (keyProblem != null) problems.add(keyProblem);
      if (!problems.isEmpty())
        throw new ParameterException(serve.spec.commandLine(), String.join("\n", problems));

      TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
      ProviderIndex providers;
      try {
        providers =
            index != null ? ProviderIndex.read(ctx.resolve(index)) : TestProviders.index(testPki);
      } catch (java.io.IOException e) {
        throw new ParameterException(
            serve.spec.commandLine(), "--index " + index + ":\n" + e.getMessage());
      }
      KeySource source = KeyOpeners.of(ctx, pkiDir, pinFile, ctx.err()::println).open(keys);
      var signing = source.key(alias);
      return PecServer.forKey(
          config,
          signing,
          providers,
          name,
          ctx.clock(),
          timeZone,
          PecServer.Logins.forTestPki(testPki, signing, ctx.err()::println),
          ctx.err()::println);
    }

    private static java.time.Duration positive(
        String flag, String text, java.util.List<String> problems) {
      try {
        java.time.Duration d = Durations.parse(text);
        if (d.toMillis() >= 100) return d;
        problems.add(flag + " " + text + ": give at least 100ms, e.g. 60s");
      } catch (IllegalArgumentException e) {
        problems.add(flag + " " + text + ": " + e.getMessage());
      }
      return java.time.Duration.ofSeconds(1);
    }

    /** The users with a mailbox, each a local part RCPT would take; every bad one named. */
    private java.util.Set<String> mailUsers(CliContext ctx, java.util.List<String> problems) {
      if (users != null && usersFile != null)
        problems.add("--users and --users-file: give one of them");
      java.util.List<String> names = new java.util.ArrayList<>();
      String flag = "--users";
      if (usersFile != null) {
        flag = "--users-file " + usersFile;
        Path file = ctx.resolve(usersFile);
        try {
          for (String line : InputFiles.lines(file, 16L << 20, "a users file")) {
            if (!line.isBlank() && !line.strip().startsWith("#")) names.add(line.strip());
          }
        } catch (java.io.IOException e) {
          problems.add(
              flag
                  + ": cannot be read ("
                  + e.getMessage()
                  + "); list one local part a line, e.g. user1");
        }
      } else if (users != null) {
        names.addAll(users);
      } else {
        return PecServer.TEST_USERS;
      }
      java.util.Set<String> set = new java.util.LinkedHashSet<>();
      for (String n : names) {
        String problem = PecServer.localPartProblem(n);
        if (problem != null) problems.add(flag + ": '" + n + "' " + problem);
        else set.add(n.toLowerCase(java.util.Locale.ROOT));
      }
      if (set.isEmpty() && problems.isEmpty())
        problems.add(flag + ": names no user; give at least one, e.g. user1");
      return set;
    }

    @Override
    String what(ReferenceServer server) {
      return "PEC provider " + domain + " listening on " + server.baseUrl();
    }
  }

  @Command(
      name = "dss",
      mixinStandardHelpOptions = true,
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
  static final class Dss extends Service {
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
      } catch (java.security.GeneralSecurityException e) {
        source.close();
        throw new ParameterException(serve.spec.commandLine(), e.getMessage());
      }
    }

    @Override
    String what(ReferenceServer server) {
      return "EU DSS REST services at " + server.baseUrl();
    }
  }
}
