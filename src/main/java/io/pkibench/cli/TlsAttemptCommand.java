package io.pkibench.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.pki.TestPki;
import io.pkibench.results.RunResultJson;
import io.pkibench.study.TlsAttempt;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * The ssl study's child: tries TLS configurations with one engine in this JVM, which the study
 * started with its legacy security properties (a JVM reads them once, so the study's own process
 * cannot). Not for people.
 */
@Command(
    name = "tls-attempt",
    hidden = true,
    description = "Tries TLS configurations on loopback for 'study ssl' (internal).")
final class TlsAttemptCommand implements Callable<Integer> {
  @ParentCommand PkibenchCommand parent;

  @Option(names = "--engine", required = true)
  String engine;

  @Option(names = "--pki", required = true)
  Path pki;

  @Option(names = "--try", required = true, description = "KEY,PROTOCOL,SUITE (IANA name)")
  List<String> attempts;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = parent.context;
    TestPki testPki = TestPki.open(ctx.resolve(pki));
    TlsEngine tls = TlsEngine.parse(engine);
    var root = testPki.certificate("root-ca");
    for (String text : attempts) {
      String[] parts = text.split(",", 3);
      if (parts.length != 3)
        throw new IllegalArgumentException("--try " + text + ": write KEY,PROTOCOL,SUITE");
      TlsAttempt attempt = new TlsAttempt(tls, parts[0], parts[1], parts[2]).inEngineNames();
      Map<String, String> line = new LinkedHashMap<>();
      line.put("key", attempt.keyFlag());
      line.put("protocol", attempt.protocol());
      line.put("suite", attempt.suite());
      line.put("refusal", attempt.refusal(TlsServerKeys.of(testPki, attempt.keyFlag()), root));
      ctx.out()
          .println(
              "pkibench.tls-attempt/1 "
                  + RunResultJson.mapper()
                      .writer()
                      .without(SerializationFeature.INDENT_OUTPUT)
                      .writeValueAsString(line));
    }
    ctx.out().flush();
    return ExitCodes.OK;
  }
}
