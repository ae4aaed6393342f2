package io.pkibench.cli;

import io.pkibench.cli.RsfnCommand.As;
import io.pkibench.cli.RsfnCommand.Common;
import io.pkibench.cli.RsfnCommand.RsfnRun;
import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.formats.rsfn.SecurityHeader;
import io.pkibench.formats.rsfn.Unpacked;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.TestPki;
import io.pkibench.server.keyserver.KeyService;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "unpack",
    mixinStandardHelpOptions = true,
    header =
        "Unpacks and checks an RSFN protocol 3 envelope, printing its header or the refusal's C03 code.",
    description = {
      "Unpacks an RSFN protocol 3 envelope: checks every header field against the certificates, their validity and revocation,",
      "unwraps the key, decrypts, verifies the signature over the plaintext, and prints the header. A refusal prints the C03 code."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench rsfn unpack --as signer-rsa2048-2 --in msg.rsfn --out msg.xml      # the sender found by C12/C13 in the test PKI",
      "  pkibench rsfn unpack --from-cert a.crt --to-cert b.crt --to-key b.key --in msg.rsfn --out msg.xml --utf16 --crl ca.crl",
      "",
      "Exit codes: 0 accepted, 1 refused (the C03 code is printed; --answer writes the header to answer with), 2 bad flags or files."
    })
final class RsfnUnpack extends RsfnRun {
  @ArgGroup(exclusive = true, multiplicity = "1")
  As as;

  @Option(
      names = "--from",
      paramLabel = "ALIAS",
      description = "the sender, a key of --keys (default: the test-PKI certificate C12/C13 name)")
  String fromAlias;

  @Option(
      names = "--from-cert",
      paramLabel = "FILE",
      description = "the sender's certificate (PEM or DER)")
  Path fromCert;

  @Option(names = "--in", required = true, paramLabel = "FILE", description = "the envelope")
  Path in;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "the payload, written only when accepted")
  Path out;

  @Option(
      names = "--answer",
      paramLabel = "FILE",
      description = "write the 588-byte header to answer the sender with (C03 set)")
  Path answer;

  @Option(
      names = "--crl",
      paramLabel = "FILE",
      description =
          "a CRL (PEM or DER) to check revocation against; repeatable (default: the test PKI's)")
  List<Path> crls = new ArrayList<>();

  @picocli.CommandLine.Mixin Common common = new Common();

  @Override
  public Integer call() throws Exception {
    CaCodes codes = caCodes(common);
    if (fromAlias != null && fromCert != null)
      problems.add("--from and --from-cert: give one sender");
    if (as.files != null && fromAlias == null && fromCert == null) {
      problems.add(
          "--from-cert: with the recipient's key in files, give the sender's certificate too (or --from ALIAS of the test PKI)");
    }
    byte[] envelope = readFile(in, "--in");
    X509Certificate senderFile = fromCert == null ? null : certificate(fromCert, "--from-cert");
    SigningKey recipientFile =
        as.files == null
            ? null
            : pemKey(
                as.files.key, "--to-key", certificate(as.files.cert, "--to-cert"), "--to-cert");
    List<X509CRL> revocation = new ArrayList<>();
    for (Path c : crls) {
      byte[] bytes = readFile(c, "--crl");
      if (bytes == null) continue;
      try {
        revocation.add(
            (X509CRL)
                CertificateFactory.getInstance("X.509")
                    .generateCRL(new ByteArrayInputStream(bytes)));
      } catch (GeneralSecurityException | RuntimeException e) {
        problems.add("--crl " + c + ": not an X.509 CRL (PEM or DER)");
      }
    }
    failOnProblems();
    boolean usesTestPki = as.alias != null || fromAlias != null || senderFile == null;
    KeySource keys = as.alias != null || fromAlias != null ? openKeys(common) : null;
    try {
      TestPki pki = usesTestPki ? testPki(common) : null;
      SigningKey recipient = recipientFile != null ? recipientFile : key(keys, as.alias, "--as");
      X509Certificate sender =
          senderFile != null
              ? senderFile
              : fromAlias != null
                  ? key(keys, fromAlias, "--from").certificate()
                  : senderInTestPki(pki, envelope, codes);
      if (revocation.isEmpty() && pki != null) {
        for (Entity e : pki.entities()) if (e.isCa()) revocation.add(pki.crlOf(e.alias()));
      }
      Unpacked result =
          new Protocol3(codes, revocation, ctx().clock(), KeyService.localProvider())
              .unpack(recipient, sender, envelope);
      if (result.header() != null) result.header().describe().forEach(ctx().out()::println);
      result.notes().forEach(n -> ctx().err().println("note: " + n));
      if (answer != null) write(answer, result.answerHeader(), "--answer");
      if (!result.ok()) {
        ctx()
            .out()
            .println(
                "refused: C03 "
                    + result.error().hex()
                    + " ("
                    + result.error().meaning
                    + "): "
                    + result.message());
        return ExitCodes.RUN_FAILED;
      }
      byte[] payload = result.payload();
      if (common.utf16)
        payload = new String(payload, StandardCharsets.UTF_16BE).getBytes(StandardCharsets.UTF_8);
      if (out != null) write(out, payload, "--out");
      ctx()
          .out()
          .println(
              "accepted: "
                  + payload.length
                  + " bytes"
                  + (out == null ? "" : " written to " + out)
                  + "; signed by "
                  + sender.getSubjectX500Principal().getName());
      return ExitCodes.OK;
    } finally {
      if (keys != null) keys.close();
    }
  }

  /** The test-PKI certificate whose serial and CA code the header's C13 and C12 name. */
  private X509Certificate senderInTestPki(TestPki pki, byte[] envelope, CaCodes codes) {
    if (envelope.length < SecurityHeader.LENGTH) {
      throw new ParameterException(
          spec.commandLine(),
          "--in "
              + in
              + ": "
              + envelope.length
              + " bytes, shorter than a header; give the sender with --from or --from-cert");
    }
    SecurityHeader h = SecurityHeader.decode(envelope);
    for (Entity e : pki.entities()) {
      if (e.isCa()) continue;
      X509Certificate c = pki.certificate(e.alias());
      if (SecurityHeader.serial(c.getSerialNumber()).equals(h.senderSerial())) {
        try {
          if (codes.codeOf(c.getIssuerX500Principal()) == h.senderCa()) return c;
        } catch (IllegalArgumentException ignored) {
          // an issuer without a code cannot be the one C12 names
        }
      }
    }
    throw new ParameterException(
        spec.commandLine(),
        "no certificate of the test PKI "
            + pki.dir()
            + " has the sender serial "
            + SecurityHeader.printable(h.senderSerial())
            + String.format(" (C13) under CA code 0x%02X (C12)", h.senderCa())
            + "; give the sender with --from ALIAS or --from-cert FILE");
  }
}
