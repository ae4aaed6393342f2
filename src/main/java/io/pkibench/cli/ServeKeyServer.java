package io.pkibench.cli;

import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.workload.api.Params;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "keyserver",
    mixinStandardHelpOptions = true,
    header =
        "A key-server node: signs and decrypts over gRPC with mutual TLS, its keys never leaving it.",
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
final class ServeKeyServer extends ServedService {
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
  List<String> aliases = new ArrayList<>();

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
      description = "a connection with no call for this long is closed (default: ${DEFAULT-VALUE})")
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
    FlagProblems problems = new FlagProblems();
    CaCodes codes = CaCodes.defaults();
    if (caCodes != null) {
      try {
        codes = CaCodes.read(ctx.resolve(caCodes));
      } catch (IOException e) {
        problems.add("--ca-codes " + caCodes + ": cannot read it (" + e.getMessage() + ")");
      } catch (IllegalArgumentException e) {
        problems.add("--ca-codes " + caCodes + ":\n" + e.getMessage());
      }
    }
    String keyProblem = KeySources.problem(keys);
    if (keyProblem != null) problems.add(keyProblem);
    else
      problems.require(
          !keys.startsWith("remote:"),
          "--keys",
          keys,
          "a key server holds its keys itself; use software or pkcs11:CONFIG");
    int maxRequestBytes = Params.parseBytes(maxRequest);
    problems.require(
        maxRequestBytes >= 1024,
        "--max-request",
        maxRequest,
        "write a size of at least 1k, like 64k or 4m");
    Duration idle = problems.duration("--idle-timeout " + idleTimeout, idleTimeout, null);
    if (threads != null) problems.within("--threads", threads, 1, 4096);
    problems.within("--max-calls-per-connection", maxCalls, 1, 100_000);
    Path grantsFile = grants == null ? null : ctx.resolve(grants);
    problems.require(
        grantsFile == null || Files.isReadable(grantsFile),
        "--grants",
        grants,
        "no such readable file");
    problems.throwIfAny(serve.spec.commandLine());

    var limits =
        new KeyServer.Limits(
            maxRequestBytes,
            Duration.ofSeconds(10),
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
