package io.pkibench.cli;

import io.pkibench.study.SslStudy;
import io.pkibench.study.Study;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "ssl",
    mixinStandardHelpOptions = true,
    header =
        "Study 5: TLS transactions per server CPU-second by transaction type and cipher suite, beside plain TCP.",
    description = {
      "Study 5: TLS transactions per server CPU-second by transaction type (RR 128 B, ACRR 8 KB, Stream 16 KB) and cipher suite,",
      "normalised to plain TCP (IBM i 6.1, tables 5.6 and 5.7). Each server its own JVM, its CPU by pid; the original's suites (RC4, AES-CBC,",
      "3DES, TLS 1.0, RSA-1024) are tried first, and where this runtime refuses one the report names the substitute it measured."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench study ssl --quick                       # about 2 minutes: plain, RC4/SHA-1 and AES128 columns",
      "  pkibench study ssl --duration 30s --html ssl.html  # every column, both engines: about 30 minutes",
      "  pkibench study ssl --tls openssl                 # only the BoringSSL engine",
      "  pkibench study ssl --quick --server pkibench,nginx  # HTTPS RR/ACRR/Stream on tlsecho and Debian's nginx, tps per server CPU-second",
      "  pkibench study ssl --quick --server pkibench,nginx --client-auth need   # the same with mutual TLS on both servers"
    })
final class StudySsl extends StudySubcommand {
  @Option(
      names = "--tls",
      split = ",",
      defaultValue = "jsse,openssl",
      paramLabel = "jsse,openssl",
      description =
          "the TLS engines to measure, server and client alike (default: ${DEFAULT-VALUE})")
  List<String> engines;

  @Option(
      names = "--server",
      split = ",",
      defaultValue = "pkibench",
      paramLabel = "pkibench,nginx",
      description =
          "the servers: pkibench alone reproduces IBM's table on serve tlsecho; with nginx the study compares the servers"
              + " on HTTPS RR, ACRR and Stream, nginx started from a configuration beside the result file (default: ${DEFAULT-VALUE})")
  List<String> servers;

  @Option(
      names = "--client-auth",
      defaultValue = "none",
      paramLabel = "none|need",
      description =
          "need (with --server pkibench,nginx): mutual TLS on every server (nginx ssl_verify_client on, tlsecho --client-auth need),"
              + " every client presenting the test PKI's tls-client certificate (default: ${DEFAULT-VALUE})")
  String clientAuth;

  @Override
  Study study() {
    if (!clientAuth.equals("none") && !clientAuth.equals("need")) {
      throw new ParameterException(
          spec.commandLine(), "--client-auth " + clientAuth + ": use none or need");
    }
    Path result =
        OutFlag.file(study.parent.context, shared.out) != null ? shared.out : Path.of("ssl.json");
    Path resolved = study.parent.context.resolve(result).toAbsolutePath();
    String name = resolved.getFileName().toString().replaceFirst("\\.json$", "");
    return new SslStudy(
        engines, servers, resolved.resolveSibling(name + "-nginx"), clientAuth.equals("need"));
  }
}
