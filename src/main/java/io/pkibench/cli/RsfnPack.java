package io.pkibench.cli;

import io.pkibench.cli.RsfnCommand.Common;
import io.pkibench.cli.RsfnCommand.From;
import io.pkibench.cli.RsfnCommand.RsfnRun;
import io.pkibench.cli.RsfnCommand.To;
import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.formats.rsfn.Treatment;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.server.keyserver.KeyService;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "pack",
    mixinStandardHelpOptions = true,
    header =
        "Packs a file as an RSFN protocol 3 envelope, signed by the sender and encrypted for the recipient.",
    description = {
      "Packs a file as an RSFN protocol 3 envelope: (gzip) → SHA256withRSA by the sender → AES-256-GCM → key ‖ IV wrapped",
      "for the recipient (RSA PKCS#1 v1.5) → the 588-byte header ‖ ciphertext. Parties are test-PKI aliases or PEM files."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench rsfn pack --from signer-rsa2048-1 --to signer-rsa2048-2 --in msg.xml --out msg.rsfn",
      "  pkibench rsfn pack --from-cert a.crt --from-key a.key --to-cert b.crt --in msg.xml --out msg.rsfn --utf16",
      "  pkibench rsfn pack --from signer-rsa2048-1 --to signer-rsa2048-2 --in big.txt --out big.rsfn --gzip   # C04 8, a compressed file",
      "",
      "Exit codes: 0 packed, 2 bad flags or files (nothing written)."
    })
final class RsfnPack extends RsfnRun {
  @ArgGroup(exclusive = true, multiplicity = "1")
  From from;

  @ArgGroup(exclusive = true, multiplicity = "1")
  To to;

  @Option(names = "--in", required = true, paramLabel = "FILE", description = "the payload")
  Path in;

  @Option(names = "--out", required = true, paramLabel = "FILE", description = "the envelope")
  Path out;

  @Option(
      names = "--gzip",
      description = "compress first (C04 8: a compressed file; 10 with --no-encrypt)")
  boolean gzip;

  @Option(
      names = "--no-encrypt",
      description = "sign only (C04 3: a message not encrypted; 10 with --gzip)")
  boolean noEncrypt;

  @picocli.CommandLine.Mixin Common common = new Common();

  @Override
  public Integer call() throws Exception {
    CaCodes codes = caCodes(common);
    byte[] payload = readFile(in, "--in");
    if (payload != null && payload.length == 0)
      problems.add("--in " + in + ": the file is empty; there is nothing to pack");
    if (payload != null && common.utf16) payload = utf8ToUtf16(payload);
    X509Certificate fileRecipient = to.cert == null ? null : certificate(to.cert, "--to-cert");
    SigningKey fileSender =
        from.files == null
            ? null
            : pemKey(
                from.files.key,
                "--from-key",
                certificate(from.files.cert, "--from-cert"),
                "--from-cert");
    failOnProblems();
    KeySource keys = from.alias != null || to.alias != null ? openKeys(common) : null;
    try {
      SigningKey sender = fileSender != null ? fileSender : key(keys, from.alias, "--from");
      X509Certificate recipient =
          fileRecipient != null ? fileRecipient : key(keys, to.alias, "--to").certificate();
      Treatment treatment = Treatment.of(!noEncrypt, gzip);
      Protocol3 codec = new Protocol3(codes, List.of(), ctx().clock(), KeyService.localProvider());
      byte[] envelope;
      try {
        envelope = codec.pack(sender, recipient, payload, treatment);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
      write(out, envelope, "--out");
      ctx()
          .out()
          .println(
              "packed "
                  + payload.length
                  + " bytes"
                  + (common.utf16 ? " (UTF-16BE)" : "")
                  + " into "
                  + out
                  + ": "
                  + envelope.length
                  + " bytes, C04 "
                  + treatment.code
                  + " ("
                  + treatment.meaning
                  + ")");
      return ExitCodes.OK;
    } finally {
      if (keys != null) keys.close();
    }
  }

  private byte[] utf8ToUtf16(byte[] utf8) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(utf8))
          .toString()
          .getBytes(StandardCharsets.UTF_16BE);
    } catch (CharacterCodingException e) {
      problems.add(
          "--utf16: "
              + in
              + " is not UTF-8 text ("
              + e.getMessage()
              + "); leave --utf16 out to pack its bytes as they are");
      return utf8;
    }
  }
}
