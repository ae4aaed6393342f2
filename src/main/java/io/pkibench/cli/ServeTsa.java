package io.pkibench.cli;

import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.keys.KeySource;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.tsa.TsaServer;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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
final class ServeTsa extends ServedService {
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
