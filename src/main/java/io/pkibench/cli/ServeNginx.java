package io.pkibench.cli;

import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.nginx.NginxPeer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "nginx",
    mixinStandardHelpOptions = true,
    header = "Runs Debian's nginx as the like-for-like peer of tlsecho's HTTP answers.",
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
final class ServeNginx extends ServedService {
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
  List<String> protocols = new ArrayList<>();

  @Option(
      names = "--ciphers",
      split = ",",
      paramLabel = "C,…",
      description = "OpenSSL cipher names, e.g. ECDHE-RSA-AES128-GCM-SHA256 (default: nginx's)")
  List<String> ciphers = new ArrayList<>();

  @Option(
      names = "--groups",
      split = ",",
      paramLabel = "G,…",
      description =
          "key-exchange groups accepted, OpenSSL's names, nginx's ssl_ecdh_curve, e.g. X25519,prime256v1 (default: nginx's)")
  List<String> groups = new ArrayList<>();

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
  List<Integer> sizes;

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
    FlagProblems problems = new FlagProblems();
    if (NginxPeer.problem() != null) problems.add(NginxPeer.problem());
    problems.require(
        bind.equals("127.0.0.1"), "--bind", bind, "the nginx peer listens on loopback only");
    problems.require(workers >= 1, "--workers", workers, "give at least 1");
    problems.within("--worker-connections", workerConnections, 16, 1_000_000);
    problems.require(
        TlsServerKeys.ALIASES.containsKey(key),
        "--key",
        key,
        "use one of " + String.join(", ", TlsServerKeys.ALIASES.keySet()));
    for (String g : groups)
      problems.require(
          g.matches("[A-Za-z0-9_-]{1,40}"),
          "--groups",
          g,
          "give OpenSSL group names, e.g. X25519,prime256v1,secp384r1");
    if (sizes.stream().anyMatch(n -> n < 0 || n > (64 << 20)))
      problems.add("--sizes: each from 0 to 64m bytes");
    problems.require(
        clientAuth.equals("none") || clientAuth.equals("need"),
        "--client-auth",
        clientAuth,
        "use none or need");
    problems.throwIfAny(serve.spec.commandLine());
    TestPki testPki = TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
    Path run = ctx.resolve(dir);
    Files.createDirectories(run);
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
            workerConnections,
            groups));
  }

  @Override
  String what(ReferenceServer server) {
    return "nginx at " + server.baseUrl();
  }
}
