package io.pkibench.workload.http;

import io.pkibench.keys.PemKeys;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The checks the outside-service workloads make of their flags before anything runs, each naming
 * the flag and the fix.
 */
final class HttpTargets {
  private HttpTargets() {}

  /** An http(s) URL with a host, or what is wrong with it. */
  static Optional<String> problem(String url) {
    if (url.isBlank()) return Optional.empty(); // the catalog says a target is missing
    try {
      URI uri = URI.create(url);
      if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
        return Optional.of("--target " + url + ": give an http:// or https:// URL");
      }
      if (uri.getHost() == null)
        return Optional.of(
            "--target " + url + ": give a URL with a host, e.g. http://127.0.0.1:18318/tsa");
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of("--target " + url + ": not a URL (" + e.getMessage() + ")");
    }
  }

  /**
   * Each file of the comma-separated {@code files} readable and holding certificates, or what is
   * wrong with the first that is not.
   */
  static Optional<String> certificatesProblem(String param, String files) {
    for (String file : files.split(",")) {
      try {
        PemKeys.certificates(Files.readAllBytes(Path.of(file.strip())));
      } catch (IOException e) {
        return Optional.of(
            "-p "
                + param
                + "="
                + file.strip()
                + ": cannot be read ("
                + e.getMessage()
                + "); give a PEM file");
      } catch (IllegalArgumentException e) {
        return Optional.of(
            "-p "
                + param
                + "="
                + file.strip()
                + ": "
                + e.getMessage()
                + "; give a PEM certificate file");
      }
    }
    return Optional.empty();
  }
}
