package io.pkibench.cli;

import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.tlsecho.TlsEchoServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "tlsecho",
    mixinStandardHelpOptions = true,
    header =
        "Netperf-style request/response, connect and stream transactions over TLS and plain TCP.",
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
final class ServeTlsEcho extends ServedService {
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
  List<String> protocols = new ArrayList<>();

  @Option(
      names = "--suites",
      split = ",",
      paramLabel = "S,…",
      description =
          "cipher suites to enable, IANA names, e.g. TLS_AES_128_GCM_SHA256 (default: the engine's)")
  List<String> suites = new ArrayList<>();

  @Option(
      names = "--groups",
      split = ",",
      paramLabel = "G,…",
      description =
          "key-exchange groups accepted, in order, e.g. X25519MLKEM768,x25519 (BoringSSL: --tls openssl, chosen by default with it;"
              + " default: the engine's)")
  List<String> groups = new ArrayList<>();

  @Option(
      names = "--resumption",
      defaultValue = "on",
      paramLabel = "on|off",
      description =
          "off: every TLS 1.2 handshake in full, no session cache and no session ticket, as nginx with ssl_session_cache"
              + " off and ssl_session_tickets off; TLS 1.3's tickets stay the engine's (default: ${DEFAULT-VALUE})")
  String resumption;

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

  @Option(
      names = "--transport",
      defaultValue = "auto",
      paramLabel = "auto|epoll|nio",
      description =
          "the event loops' transport: auto takes Linux's epoll (netty's native library) where it loads, else Java's NIO;"
              + " the one taken is in the ready line's details (default: ${DEFAULT-VALUE})")
  String transport;

  @Override
  ReferenceServer open(CliContext ctx, Path pkiDir) throws Exception {
    FlagProblems problems = new FlagProblems();
    Duration idle = problems.duration("--idle-timeout " + idleTimeout, idleTimeout, Duration.ZERO);
    Duration frame =
        problems.durationOfAtLeast(
            "--frame-deadline",
            frameDeadline,
            Duration.ofMillis(100),
            "30s",
            Duration.ofSeconds(1));
    problems.require(
        maxPerAddress >= 1, "--max-connections-per-address", maxPerAddress, "give at least 1");
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
                idle, Duration.ofSeconds(10), maxConnections, frame, maxPerAddress),
            clientAuth,
            groups);
    problems.require(
        resumption.equals("on") || resumption.equals("off"),
        "--resumption",
        resumption,
        "use on or off");
    if (resumption.equals("off")) config = config.withoutResumption();
    problems.addAll(config.problems());
    if (!TlsEchoServer.TRANSPORTS.contains(transport))
      problems.add(
          "--transport "
              + transport
              + ": choose "
              + String.join(", ", TlsEchoServer.TRANSPORTS)
              + " (auto: epoll where it loads)");
    problems.throwIfAny(serve.spec.commandLine());
    TestPki testPki =
        config.engine().equals("none")
            ? null
            : TestPki.openOrInit(pkiDir, ctx.clock(), ctx.err()::println);
    return TlsEchoServer.open(config, testPki, ctx.err()::println).onTransport(transport);
  }

  @Override
  String what(ReferenceServer server) {
    return "echo transactions at " + server.baseUrl();
  }
}
