package io.pkibench.cli;

import io.pkibench.keys.Pkcs11KeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "pki",
    mixinStandardHelpOptions = true,
    description = "Manages the test PKI.",
    subcommands = PkiCommand.Init.class)
final class PkiCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "name a subcommand: pki init");
  }

  @Command(
      name = "init",
      mixinStandardHelpOptions = true,
      description = {
        "Creates the test PKI (root, two intermediates, signers, TLS, TSA, key-server certificates, CRLs).",
        "Idempotent: an existing PKI is left unchanged."
      },
      footer = {
        "",
        "Examples:",
        "  pkibench pki init",
        "  pkibench pki init --pki ./pki",
        "  PKIBENCH_PKCS11_PIN=1234 pkibench pki init --pkcs11 softhsm.cfg   # also puts the keys into a token"
      })
  static final class Init implements Callable<Integer> {
    @ParentCommand PkiCommand pki;

    @Option(
        names = {"--pki", "--dir"},
        paramLabel = "DIR",
        description =
            "where to create it, as --pki names it for every other command; --dir is the older name (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path dir;

    @Option(
        names = "--crl-base-url",
        paramLabel = "URL",
        defaultValue = TestPki.DEFAULT_CRL_BASE_URL,
        description =
            "base of the CRL distribution points written into certificates (default: ${DEFAULT-VALUE})")
    String crlBaseUrl;

    @Option(
        names = "--pkcs11",
        paramLabel = "CONFIG",
        description =
            "also import the end-entity keys with their certificates into this SunPKCS11 token")
    Path pkcs11;

    @Option(
        names = "--pin-file",
        paramLabel = "FILE",
        description = "file holding the token PIN (else $" + KeySources.PIN_ENV + ")")
    Path pinFile;

    @Override
    public Integer call() throws Exception {
      CliContext ctx = pki.parent.context;
      Path target =
          dir == null
              ? ctx.pkiDir(null)
              : ctx.resolve(dir); // init makes the whole path it is given
      TestPki testPki = TestPki.init(target, ctx.clock(), crlBaseUrl, ctx.err()::println);
      ctx.out().println("test PKI: " + target);
      if (pkcs11 != null) {
        Secret pin =
            Secret.from(
                pinFile == null ? null : ctx.resolve(pinFile),
                ctx.env(),
                KeySources.PIN_ENV,
                "the PKCS#11 PIN");
        Pkcs11KeySource token = new Pkcs11KeySource(ctx.resolve(pkcs11), pin, ctx.env());
        pin.wipe();
        try {
          int imported = token.importFrom(testPki, ctx.err()::println);
          ctx.out().println("imported " + imported + " keys with certificates into " + pkcs11);
        } finally {
          token.close();
        }
      }
      return ExitCodes.OK;
    }
  }
}
