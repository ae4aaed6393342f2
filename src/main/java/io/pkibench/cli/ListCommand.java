package io.pkibench.cli;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.Wycheproof;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.results.WycheproofCheck;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.Security;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "Lists workloads with their parameters, key sources, providers and CPU meters.",
    footer = {
      "",
      "Examples:",
      "  pkibench list",
      "  pkibench list --keys pkcs11:softhsm.cfg --pin-file pin.txt     # also puts the token's verifier to Wycheproof's vectors"
    })
final class ListCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Option(
      names = "--keys",
      paramLabel = "pkcs11:CONFIG",
      description =
          "a PKCS#11 token to put to Project Wycheproof's vectors beside the software providers")
  String keys;

  @Option(
      names = "--pin-file",
      paramLabel = "FILE",
      description = "file holding the PKCS#11 PIN (else $" + KeySources.PIN_ENV + ")")
  Path pinFile;

  @Override
  public void run() {
    String token = keys == null ? null : tokenLine(parent.context);
    PrintWriter out = parent.context.out();
    out.println("Workloads (pkibench run NAME -p PARAM=VALUE):");
    for (WorkloadFactory f : WorkloadCatalog.builtIn().factories()) {
      out.printf("  %-10s %s%n", f.name(), f.description());
      for (ParamSpec p : f.params()) {
        String shown = p.defaultValue().isEmpty() ? "… (optional)" : p.defaultValue();
        out.printf(
            "    -p %s=%s   %s%s%n",
            p.name(),
            shown,
            p.description(),
            p.allowed().isEmpty() ? "" : " [" + String.join(", ", p.allowed()) + "]");
      }
    }
    out.println();
    out.println("Key sources (--keys):");
    Throwable accp = ProviderChoice.accpLoadFailure();
    // the providers' Wycheproof runs (about a second or more each) side by side rather than one
    // after another
    Arrays.stream(ProviderChoice.values()).parallel().forEach(Wycheproof::verdicts);
    out.println(
        "  software        test PKI keys through the best provider here: "
            + ProviderChoice.best().flag);
    out.println(
        "  software:accp   Amazon Corretto Crypto Provider "
            + (accp == null
                ? "(loads here)" + wycheproof(ProviderChoice.ACCP)
                : "(does NOT load here: " + accp + ")"));
    out.println("  software:jdk    the JDK's own providers" + wycheproof(ProviderChoice.JDK));
    out.println("  software:bc     BouncyCastle" + wycheproof(ProviderChoice.BC));
    out.println(
        "  pkcs11:CONFIG   a PKCS#11 token through SunPKCS11 (PIN from --pin-file or $PKIBENCH_PKCS11_PIN)"
            + "  [Wycheproof: checked by 'run verify --keys pkcs11:CONFIG', or here with 'list --keys pkcs11:CONFIG']");
    if (token != null) out.println(token);
    out.println();
    out.println(
        "Providers installed in this JDK (" + System.getProperty("java.runtime.version") + "):");
    for (Provider p : Security.getProviders())
      out.println("  " + p.getName() + " " + p.getVersionStr());
    out.println();
    out.println(
        "Providers marked '!' verify an invalid Project Wycheproof vector or refuse a valid one for the key type named: not recommended for it.");
    out.println();
    out.println(
        "CPU meters (--cpu): jvm (this process), host (/proc/stat), pid:N (another process)");
  }

  /**
   * The token of {@code --keys} opened and put to every family of vectors it verifies: its line in
   * the list, with its marks.
   */
  private String tokenLine(CliContext ctx) {
    if (!keys.startsWith("pkcs11:") || keys.length() == "pkcs11:".length()) {
      throw new ParameterException(
          spec.commandLine(),
          "--keys "
              + keys
              + ": list checks a PKCS#11 token, --keys pkcs11:CONFIG (software providers are always checked)");
    }
    Path pin = pinFile == null ? null : ctx.resolve(pinFile);
    try (KeySource source =
        KeySources.open(
            "pkcs11:" + ctx.resolve(Path.of(keys.substring("pkcs11:".length()))),
            () -> null,
            pin,
            ctx.env(),
            ctx.clock(),
            line -> {})) {
      WycheproofCheck check = WycheproofCheck.of(Wycheproof.verdicts(source, null));
      String verdict =
          check.checked().isEmpty()
              ? "  [Wycheproof: the token verifies none of the key types with vectors]"
              : check.marks().isEmpty()
                  ? "  [Wycheproof: agrees with every vector of "
                      + String.join(", ", check.checked())
                      + "]"
                  : "  [! Wycheproof: " + String.join("; ", check.marks()) + "]";
      return "    " + keys + " (" + check.provider() + ")" + verdict;
    } catch (GeneralSecurityException | IOException | IllegalArgumentException e) {
      // the token's own errors already name --keys pkcs11:CONFIG and the fix
      throw new ParameterException(
          spec.commandLine(),
          e.getMessage() != null && e.getMessage().startsWith("--keys")
              ? e.getMessage()
              : "--keys " + keys + ": " + e.getMessage());
    }
  }

  /**
   * Wycheproof's word on a provider's signatures: what it got wrong, so that no one picks it for
   * that key type unawares.
   */
  private static String wycheproof(ProviderChoice choice) {
    List<String> marks = Wycheproof.marks(choice, null);
    return marks.isEmpty()
        ? "  [Wycheproof: agrees with every vector]"
        : "  [! Wycheproof: " + String.join("; ", marks) + "]";
  }
}
