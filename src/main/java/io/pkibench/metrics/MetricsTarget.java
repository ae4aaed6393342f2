package io.pkibench.metrics;

import io.pkibench.text.CommandLineSecrets;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Where {@code --metrics} pushes a run's live figures: a Prometheus remote-write endpoint or an
 * OTLP/HTTP receiver. Only http and https: anything else is refused before the run starts.
 */
public record MetricsTarget(Kind kind, URI uri) {
  public enum Kind {
    PROMETHEUS_RW("prometheus-rw"),
    OTLP("otlp");

    private final String flagName;

    Kind(String flagName) {
      this.flagName = flagName;
    }

    public String flagName() {
      return flagName;
    }
  }

  /**
   * {@code prometheus-rw=URL} or {@code otlp=URL}; the message names the flag and what it takes.
   */
  public static MetricsTarget parse(String value) {
    int eq = value.indexOf('=');
    String kindName = eq < 0 ? value : value.substring(0, eq);
    Kind kind = null;
    for (Kind k : Kind.values()) if (k.flagName.equals(kindName.toLowerCase(Locale.ROOT))) kind = k;
    if (kind == null || eq < 0) {
      throw new IllegalArgumentException(
          "--metrics "
              + CommandLineSecrets.redacted(value)
              + ": give prometheus-rw=URL (e.g. prometheus-rw=http://127.0.0.1:9090/api/v1/write)"
              + " or otlp=URL (e.g. otlp=http://127.0.0.1:4318)");
    }
    String url = value.substring(eq + 1);
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "--metrics "
              + kindName
              + "=…: not a URL ("
              + e.getReason()
              + "), e.g. "
              + kindName
              + "=http://127.0.0.1:"
              + (kind == Kind.OTLP ? "4318" : "9090/api/v1/write"));
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException(
          "--metrics "
              + kindName
              + "="
              + new MetricsTarget(kind, uri).shown()
              + ": the receiver must be an http:// or https:// URL, e.g. "
              + kindName
              + "=http://127.0.0.1:"
              + (kind == Kind.OTLP ? "4318" : "9090/api/v1/write"));
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(
          "--metrics "
              + kindName
              + "="
              + new MetricsTarget(kind, uri).shown()
              + ": the URL names no host");
    }
    return new MetricsTarget(kind, uri);
  }

  /**
   * The URL as logs and the result show it: scheme, host, port and path, without user info or
   * query, where a token could hide.
   */
  public String shown() {
    String host = uri.getHost() == null ? "" : uri.getHost();
    return (uri.getScheme() == null ? "" : uri.getScheme() + "://")
        + host
        + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
        + (uri.getRawPath() == null ? "" : uri.getRawPath());
  }

  @Override
  public String toString() {
    return kind.flagName + "=" + shown();
  }
}
