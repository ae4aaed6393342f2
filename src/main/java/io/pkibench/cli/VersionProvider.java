package io.pkibench.cli;

import java.io.IOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    var p = new Properties();
    try (var in = VersionProvider.class.getResourceAsStream("/io/pkibench/build.properties")) {
      if (in != null) p.load(in);
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return new String[] {
      "pkibench "
          + p.getProperty("version", "unknown")
          + " (commit "
          + p.getProperty("commit", "unknown")
          + ("true".equals(p.getProperty("dirty")) ? "-dirty" : "")
          + ")",
      "JDK " + System.getProperty("java.runtime.version")
    };
  }
}
