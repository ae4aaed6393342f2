package io.pkibench.cli;

import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.formats.rsfn.SecurityHeader;
import io.pkibench.formats.rsfn.Treatment;
import io.pkibench.formats.rsfn.Unpacked;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.Entity;
import io.pkibench.pki.TestPki;
import io.pkibench.server.keyserver.KeyService;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "rsfn",
    mixinStandardHelpOptions = true,
    description =
        "RSFN security protocol 3 envelopes (588-byte header, SHA256withRSA, AES-256-GCM, the key wrapped for the recipient).",
    subcommands = {RsfnCommand.Pack.class, RsfnCommand.Unpack.class, RsfnCommand.Inspect.class},
    footer = {
      "",
      "Examples:",
      "  pkibench rsfn pack --from signer-rsa2048-1 --to signer-rsa2048-2 --in msg.xml --out msg.rsfn",
      "  pkibench rsfn unpack --as signer-rsa2048-2 --in msg.rsfn --out msg.xml",
      "  pkibench rsfn inspect msg.rsfn"
    })
final class RsfnCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  /** Envelopes and payloads read whole: a file past this is refused before it is read. */
  static final long MAX_FILE_BYTES =
      Protocol3.DEFAULT_MAX_PAYLOAD_BYTES + SecurityHeader.LENGTH + 1024;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "name a subcommand: rsfn pack, rsfn unpack or rsfn inspect (pkibench rsfn --help)");
  }

  /** Where aliases' keys come from, and what decides CA codes and revocation. */
  static final class Common {
    @Option(
        names = "--keys",
        defaultValue = "software",
        paramLabel = "SOURCE",
        description =
            "where aliases' keys live: software, pkcs11:CONFIG or remote:HOST:PORT,… (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(
        names = "--pki",
        paramLabel = "DIR",
        description =
            "test PKI directory for aliases and its CRLs (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path pki;

    @Option(
        names = "--pin-file",
        paramLabel = "FILE",
        description = "file holding the PKCS#11 PIN (else $" + KeySources.PIN_ENV + ")")
    Path pinFile;

    @Option(
        names = "--ca-codes",
        paramLabel = "FILE",
        description =
            "CA codes (C10/C12) by issuer, one 'CODE = ISSUER TEXT' a line, before the defaults")
    Path caCodes;

    @Option(
        names = "--utf16",
        description =
            "the payload is UTF-8 text carried as UTF-16BE (the XML message convention): converted before packing, back after unpacking")
    boolean utf16;
  }

  /**
   * The pieces of a command: the context, the parsed files, and every problem found, reported
   * together.
   */
  @Command
  abstract static class RsfnRun implements Callable<Integer> {
    @ParentCommand RsfnCommand rsfn;
    @Spec CommandSpec spec;
    final List<String> problems = new ArrayList<>();

    CliContext ctx() {
      return rsfn.parent.context;
    }

    byte[] readFile(Path file, String flag) {
      Path p = ctx().resolve(file);
      // read up to the limit and one byte more, not by the size the file claims: /dev/zero or a
      // pipe says 0
      try (InputStream in = Files.newInputStream(p)) {
        byte[] bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
        if (bytes.length > MAX_FILE_BYTES) {
          problems.add(
              flag
                  + " "
                  + file
                  + ": more than "
                  + MAX_FILE_BYTES
                  + " bytes, past the limit; an RSFN file is never that large");
          return null;
        }
        return bytes;
      } catch (IOException e) {
        problems.add(
            flag
                + " "
                + file
                + ": cannot read it ("
                + e.getClass().getSimpleName()
                + ": "
                + e.getMessage()
                + ")");
        return null;
      }
    }

    X509Certificate certificate(Path file, String flag) {
      byte[] bytes = readFile(file, flag);
      if (bytes == null) return null;
      try {
        return PemKeys.certificate(bytes);
      } catch (IllegalArgumentException e) {
        problems.add(flag + " " + file + ": " + e.getMessage());
        return null;
      }
    }

    /**
     * A PEM private key, PKCS#8 ("PRIVATE KEY") or PKCS#1 ("RSA PRIVATE KEY"), paired with its
     * certificate.
     */
    SigningKey pemKey(Path keyFile, String keyFlag, X509Certificate cert, String certFlag) {
      if (cert == null) return null;
      byte[] pem = readFile(keyFile, keyFlag);
      if (pem == null) return null;
      try {
        return PemKeys.rsaKeyOf(
            ctx().resolve(keyFile).getFileName().toString(), PemKeys.privateKey(pem), cert);
      } catch (IllegalArgumentException e) {
        problems.add(
            keyFlag + " " + keyFile + ": " + e.getMessage().replace("the certificate", certFlag));
        return null;
      } catch (GeneralSecurityException e) {
        problems.add(keyFlag + ": " + e.getMessage());
        return null;
      }
    }

    CaCodes caCodes(Common common) {
      if (common.caCodes == null) return CaCodes.defaults();
      try {
        return CaCodes.read(ctx().resolve(common.caCodes));
      } catch (IOException e) {
        problems.add("--ca-codes " + common.caCodes + ": cannot read it (" + e.getMessage() + ")");
      } catch (IllegalArgumentException e) {
        problems.add("--ca-codes " + common.caCodes + ":\n" + e.getMessage());
      }
      return CaCodes.defaults();
    }

    void failOnProblems() {
      if (!problems.isEmpty())
        throw new ParameterException(spec.commandLine(), String.join("\n", problems));
    }

    KeySource openKeys(Common common) throws Exception {
      String problem = KeySources.problem(common.keys);
      if (problem != null) throw new ParameterException(spec.commandLine(), problem);
      Path pkiDir = ctx().pkiDir(common.pki);
      return KeyOpeners.of(ctx(), pkiDir, common.pinFile, ctx().err()::println).open(common.keys);
    }

    TestPki testPki(Common common) {
      return TestPki.openOrInit(ctx().pkiDir(common.pki), ctx().clock(), ctx().err()::println);
    }

    void write(Path file, byte[] bytes, String flag) throws IOException {
      Path target = ctx().resolve(file);
      try {
        Files.write(target, bytes);
      } catch (IOException e) {
        throw new ParameterException(
            spec.commandLine(),
            flag
                + " "
                + file
                + ": cannot write it ("
                + e.getClass().getSimpleName()
                + ": "
                + e.getMessage()
                + ")");
      }
    }
  }

  static final class From {
    @Option(
        names = "--from",
        paramLabel = "ALIAS",
        description = "the sender: a key of --keys (a test-PKI alias)")
    String alias;

    @ArgGroup(exclusive = false)
    SenderFiles files;

    static final class SenderFiles {
      @Option(
          names = "--from-cert",
          required = true,
          paramLabel = "FILE",
          description = "the sender's certificate (PEM or DER)")
      Path cert;

      @Option(
          names = "--from-key",
          required = true,
          paramLabel = "FILE",
          description = "the sender's private key (PEM, PKCS#8 or PKCS#1)")
      Path key;
    }
  }

  static final class To {
    @Option(
        names = "--to",
        paramLabel = "ALIAS",
        description = "the recipient: a key of --keys (its certificate is what is used)")
    String alias;

    @Option(
        names = "--to-cert",
        paramLabel = "FILE",
        description = "the recipient's certificate (PEM or DER)")
    Path cert;
  }

  @Command(
      name = "pack",
      mixinStandardHelpOptions = true,
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
  static final class Pack extends RsfnRun {
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
        Protocol3 codec =
            new Protocol3(codes, List.of(), ctx().clock(), KeyService.localProvider());
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

  static final class As {
    @Option(
        names = "--as",
        paramLabel = "ALIAS",
        description = "the recipient unpacking: a key of --keys")
    String alias;

    @ArgGroup(exclusive = false)
    RecipientFiles files;

    static final class RecipientFiles {
      @Option(
          names = "--to-cert",
          required = true,
          paramLabel = "FILE",
          description = "the recipient's certificate (PEM or DER)")
      Path cert;

      @Option(
          names = "--to-key",
          required = true,
          paramLabel = "FILE",
          description = "the recipient's private key (PEM, PKCS#8 or PKCS#1)")
      Path key;
    }
  }

  @Command(
      name = "unpack",
      mixinStandardHelpOptions = true,
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
  static final class Unpack extends RsfnRun {
    @ArgGroup(exclusive = true, multiplicity = "1")
    As as;

    @Option(
        names = "--from",
        paramLabel = "ALIAS",
        description =
            "the sender, a key of --keys (default: the test-PKI certificate C12/C13 name)")
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

  @Command(
      name = "inspect",
      mixinStandardHelpOptions = true,
      description =
          "Prints an envelope's 588-byte security header field by field (C01–C15), checking nothing.",
      footer = {
        "",
        "Example:",
        "  pkibench rsfn inspect msg.rsfn",
        "",
        "Exit codes: 0 printed, 1 shorter than a header, 2 unreadable."
      })
  static final class Inspect extends RsfnRun {
    @Parameters(paramLabel = "FILE", description = "the envelope (or a 588-byte answer header)")
    Path file;

    @Override
    public Integer call() {
      byte[] envelope = readFile(file, "FILE");
      failOnProblems();
      if (envelope.length < SecurityHeader.LENGTH) {
        ctx()
            .out()
            .println(
                file
                    + ": "
                    + envelope.length
                    + " bytes, shorter than the 588 of a protocol 3 header");
        return ExitCodes.RUN_FAILED;
      }
      SecurityHeader.decode(envelope).describe().forEach(ctx().out()::println);
      ctx()
          .out()
          .println(
              "payload                "
                  + (envelope.length - SecurityHeader.LENGTH)
                  + " bytes after the header");
      return ExitCodes.OK;
    }
  }

  static SigningKey key(KeySource keys, String alias, String flag) throws GeneralSecurityException {
    try {
      return keys.key(alias);
    } catch (GeneralSecurityException e) {
      throw new GeneralSecurityException(flag + " " + alias + ": " + e.getMessage(), e);
    }
  }
}
