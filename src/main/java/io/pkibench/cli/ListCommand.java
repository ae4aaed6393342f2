package io.pkibench.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.Wycheproof;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WycheproofCheck;
import io.pkibench.text.ConsoleTable;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Suggestions;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
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
      "  pkibench list sign verify --format json   # two workloads' parameters, for a script",
      "  pkibench list --check                     # also puts each provider to Project Wycheproof's vectors (seconds)",
      "  pkibench list --keys pkcs11:softhsm.cfg --pin-file pin.txt     # also puts the token's verifier to Wycheproof's vectors"
    })
final class ListCommand implements Runnable {
  enum Format {
    table,
    json
  }

  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..*",
      paramLabel = "WORKLOAD",
      description = "only these workloads (default: every one)")
  List<String> only = new ArrayList<>();

  @Option(
      names = "--format",
      defaultValue = "table",
      paramLabel = "FORMAT",
      description = "table or json (default: ${DEFAULT-VALUE})")
  Format format;

  @Option(
      names = "--check",
      description =
          "put each software provider to Project Wycheproof's vectors and mark those that get one wrong (takes seconds)")
  boolean check;

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
    WorkloadCatalog catalog = WorkloadCatalog.builtIn();
    List<String> problems = new ArrayList<>();
    for (String name : only) {
      if (catalog.find(name).isEmpty())
        problems.add(
            "WORKLOAD "
                + name
                + ": no such workload"
                + Suggestions.didYouMean(name, catalog.names())
                + "; 'pkibench list' shows them all");
    }
    if (!problems.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", problems));
    List<WorkloadFactory> shown =
        catalog.factories().stream()
            .filter(f -> only.isEmpty() || only.contains(f.name()))
            .toList();
    // The token is put to the vectors when it is named: naming it is asking.
    String token = keys == null ? null : tokenLine(parent.context);
    if (check) {
      // the providers' Wycheproof runs (about a second or more each) side by side rather than one
      // after another
      Arrays.stream(ProviderChoice.values()).parallel().forEach(Wycheproof::verdicts);
    }
    if (format == Format.json) {
      printJson(parent.context.out(), shown, token);
      return;
    }
    PrintWriter out = parent.context.out();
    out.println("Workloads (pkibench run NAME -p PARAM=VALUE):");
    for (WorkloadFactory f : shown) {
      out.print(
          ConsoleTable.definition(
              String.format(Locale.ROOT, "  %-10s ", f.name()), f.description()));
      for (ParamSpec p : f.params()) {
        String shownDefault = p.defaultValue().isEmpty() ? "… (optional)" : p.defaultValue();
        out.print(
            ConsoleTable.definition(
                "    -p " + p.name() + "=" + shownDefault + "   ",
                p.description()
                    + (p.allowed().isEmpty() ? "" : " [" + String.join(", ", p.allowed()) + "]")));
      }
    }
    if (!only.isEmpty()) return;
    out.println();
    out.println("Key sources (--keys):");
    Throwable accp = ProviderChoice.accpLoadFailure();
    out.print(
        ConsoleTable.definition(
            "  software        ",
            "test PKI keys through the best provider here: " + ProviderChoice.best().flag));
    out.print(
        ConsoleTable.definition(
            "  software:accp   ",
            "Amazon Corretto Crypto Provider "
                + (accp == null
                    ? "(loads here)" + wycheproof(ProviderChoice.ACCP)
                    : "(does NOT load here: " + accp + ")")));
    out.print(
        ConsoleTable.definition(
            "  software:jdk    ", "the JDK's own providers" + wycheproof(ProviderChoice.JDK)));
    out.print(
        ConsoleTable.definition(
            "  software:bc     ", "BouncyCastle" + wycheproof(ProviderChoice.BC)));
    out.print(
        ConsoleTable.definition(
            "  pkcs11:CONFIG   ",
            "a PKCS#11 token through SunPKCS11 (PIN from --pin-file or $PKIBENCH_PKCS11_PIN)"
                + " [Wycheproof: checked by 'run verify --keys pkcs11:CONFIG', or here with"
                + " 'list --keys pkcs11:CONFIG']"));
    if (token != null) out.println(token);
    out.println();
    out.println(
        "Providers installed in this JDK (" + System.getProperty("java.runtime.version") + "):");
    for (Provider p : Security.getProviders())
      out.println("  " + p.getName() + " " + p.getVersionStr());
    out.println();
    out.println(
        check
            ? "Providers marked '!' verify an invalid Project Wycheproof vector or refuse a valid one for the key type named: not recommended for it."
            : "Providers are not put to Project Wycheproof's vectors here: 'pkibench list --check' does (seconds).");
    out.println();
    out.println(
        "CPU meters (--cpu): jvm (this process), host (/proc/stat), pid:N (another process)");
  }

  /**
   * The same as the table, as one JSON object for scripts; Wycheproof's marks only with --check.
   */
  private void printJson(PrintWriter out, List<WorkloadFactory> shown, String token) {
    Map<String, Object> all = new LinkedHashMap<>();
    List<Map<String, Object>> workloads = new ArrayList<>();
    for (WorkloadFactory f : shown) {
      Map<String, Object> w = new LinkedHashMap<>();
      w.put("name", f.name());
      w.put("description", f.description());
      List<Map<String, Object>> params = new ArrayList<>();
      for (ParamSpec p : f.params()) {
        Map<String, Object> param = new LinkedHashMap<>();
        param.put("name", p.name());
        param.put("default", p.defaultValue());
        param.put("description", p.description());
        param.put("allowed", p.allowed());
        params.add(param);
      }
      w.put("params", params);
      workloads.add(w);
    }
    all.put("workloads", workloads);
    if (only.isEmpty()) {
      List<Map<String, Object>> sources = new ArrayList<>();
      Throwable accp = ProviderChoice.accpLoadFailure();
      for (ProviderChoice choice : ProviderChoice.values()) {
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("keys", "software:" + choice.flag);
        source.put("loads", choice != ProviderChoice.ACCP || accp == null);
        if (check) source.put("wycheproofMarks", Wycheproof.marks(choice, null));
        sources.add(source);
      }
      all.put("keySources", sources);
      all.put("bestSoftware", "software:" + ProviderChoice.best().flag);
      if (token != null) all.put("token", token.strip());
      List<Map<String, String>> providers = new ArrayList<>();
      for (Provider p : Security.getProviders())
        providers.add(Map.of("name", p.getName(), "version", p.getVersionStr()));
      all.put("providers", providers);
      all.put("cpuMeters", List.of("jvm", "host", "pid:N"));
    }
    try {
      out.println(RunResultJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(all));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("list as JSON", e);
    }
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
  private String wycheproof(ProviderChoice choice) {
    if (!check) return "";
    List<String> marks = Wycheproof.marks(choice, null);
    return marks.isEmpty()
        ? "  [Wycheproof: agrees with every vector]"
        : "  [! Wycheproof: " + String.join("; ", marks) + "]";
  }
}
