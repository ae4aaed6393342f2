package io.pkibench.session;

import com.sun.management.OperatingSystemMXBean;
import io.pkibench.results.Environment;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Provider;
import java.security.Security;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/** Reads the facts a result records about the machine, the JDK and this build. */
public final class EnvironmentProbe {
  private EnvironmentProbe() {}

  /**
   * {@code extraProviders}: providers the run uses that are not installed globally (ACCP,
   * BouncyCastle).
   */
  public static Environment capture(
      String commandLine, InstantSource clock, List<Provider> extraProviders) {
    List<String> providers = new ArrayList<>();
    for (Provider p : Security.getProviders()) providers.add(p.getName() + " " + p.getVersionStr());
    for (Provider p : extraProviders) {
      String entry = p.getName() + " " + p.getVersionStr();
      if (!providers.contains(entry)) providers.add(entry);
    }
    var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Properties build = buildProperties();
    return new Environment(
        build.getProperty("version", "unknown"),
        build.getProperty("commit", "unknown")
            + ("true".equals(build.getProperty("dirty")) ? "-dirty" : ""),
        System.getProperty("java.vendor")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ")",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"),
        cpuModel(),
        Runtime.getRuntime().availableProcessors(),
        os.getTotalMemorySize(),
        providers,
        commandLine,
        clock.instant());
  }

  static Properties buildProperties() {
    Properties p = new Properties();
    try (InputStream in =
        EnvironmentProbe.class.getResourceAsStream("/io/pkibench/build.properties")) {
      if (in != null) p.load(in);
    } catch (IOException e) {
      // an unreadable build stamp is recorded as "unknown", not a reason to refuse to measure
    }
    return p;
  }

  private static String cpuModel() {
    try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      return lines
          .filter(l -> l.startsWith("model name"))
          .findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
