package io.pkibench.cli;

import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.formats.rsfn.SecurityHeader;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "rsfn",
    mixinStandardHelpOptions = true,
    description =
        "RSFN security protocol 3 envelopes (588-byte header, SHA256withRSA, AES-256-GCM, the key wrapped for the recipient).",
    subcommands = {RsfnPack.class, RsfnUnpack.class, RsfnInspect.class},
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
    final FlagProblems problems = new FlagProblems();

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
      problems.throwIfAny(spec.commandLine());
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

    static SigningKey key(KeySource keys, String alias, String flag)
        throws GeneralSecurityException {
      try {
        return keys.key(alias);
      } catch (GeneralSecurityException e) {
        throw new GeneralSecurityException(flag + " " + alias + ": " + e.getMessage(), e);
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
}
