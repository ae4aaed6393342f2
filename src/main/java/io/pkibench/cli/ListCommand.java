package io.pkibench.cli;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.Wycheproof;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.catalog.WorkloadCatalog;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.PrintWriter;
import java.security.Provider;
import java.util.List;
import java.security.Security;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "Lists workloads with their parameters, key sources, providers and CPU meters.",
    footer = {"", "Example:", "  pkibench list"})
final class ListCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;

  @Override
  public void run() {
    PrintWriter out = parent.context.out();
    out.println("Workloads (pkibench run NAME -p PARAM=VALUE):");
    for (WorkloadFactory f : WorkloadCatalog.builtIn().factories()) {
      out.printf("  %-10s %s%n", f.name(), f.description());
      for (ParamSpec p : f.params()) {
        String shown = p.defaultValue().isEmpty() ? "… (optional)" : p.defaultValue();
        out.printf("    -p %s=%s   %s%s%n", p.name(), shown, p.description(),
            p.allowed().isEmpty() ? "" : " [" + String.join(", ", p.allowed()) + "]");
      }
    }
    out.println();
    out.println("Key sources (--keys):");
    Throwable accp = ProviderChoice.accpLoadFailure();
    // the providers' Wycheproof runs (about a second or more each) side by side rather than one after another
    java.util.Arrays.stream(ProviderChoice.values()).parallel().forEach(Wycheproof::verdicts);
    out.println("  software        test PKI keys through the best provider here: " + ProviderChoice.best().flag);
    out.println("  software:accp   Amazon Corretto Crypto Provider " + (accp == null ? "(loads here)" + wycheproof(ProviderChoice.ACCP) : "(does NOT load here: " + accp + ")"));
    out.println("  software:jdk    the JDK's own providers" + wycheproof(ProviderChoice.JDK));
    out.println("  software:bc     BouncyCastle" + wycheproof(ProviderChoice.BC));
    out.println("  pkcs11:CONFIG   a PKCS#11 token through SunPKCS11 (PIN from --pin-file or $PKIBENCH_PKCS11_PIN)");
    out.println();
    out.println("Providers installed in this JDK (" + System.getProperty("java.runtime.version") + "):");
    for (Provider p : Security.getProviders()) out.println("  " + p.getName() + " " + p.getVersionStr());
    out.println();
    out.println("Providers marked '!' verify an invalid Project Wycheproof vector or refuse a valid one for the key type named: not recommended for it.");
    out.println();
    out.println("CPU meters (--cpu): jvm (this process), host (/proc/stat), pid:N (another process)");
  }

  /** Wycheproof's word on a provider's signatures: what it got wrong, so that no one picks it for that key type unawares. */
  private static String wycheproof(ProviderChoice choice) {
    List<String> marks = Wycheproof.marks(choice, null);
    return marks.isEmpty() ? "  [Wycheproof: agrees with every vector]" : "  [! Wycheproof: " + String.join("; ", marks) + "]";
  }
}
