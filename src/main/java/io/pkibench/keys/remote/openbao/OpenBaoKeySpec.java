package io.pkibench.keys.remote.openbao;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code --keys openbao:URL[,URL…][,key=NAME][,mount=transit][,token-env=VAR|token-file=F]
 * [,trust=PEM]} value, parsed: the nodes (a cluster's, tried in turn), the transit key every alias
 * maps to (none: each alias is a transit key of its name, as serve openbao imports them), where the
 * token is read, and the root its TLS is checked against (none: the test PKI's).
 */
public record OpenBaoKeySpec(
    List<URI> nodes, String key, String mount, String tokenEnv, String tokenFile, Path trust) {
  public static final String PREFIX = "openbao:";

  public OpenBaoKeySpec {
    nodes = List.copyOf(nodes);
  }

  /** Parses {@code spec}; throws naming --keys and every problem at once. */
  public static OpenBaoKeySpec parse(String spec) {
    List<String> problems = new ArrayList<>();
    List<URI> nodes = new ArrayList<>();
    String key = null, mount = "transit", tokenEnv = null, tokenFile = null;
    Path trust = null;
    for (String raw : spec.substring(PREFIX.length()).split(",")) {
      String item = raw.strip();
      int eq = item.indexOf('=');
      String name = eq < 0 ? "" : item.substring(0, eq);
      String value = eq < 0 ? "" : item.substring(eq + 1);
      switch (name) {
        case "key" -> key = value;
        case "mount" -> mount = value;
        case "token-env" -> tokenEnv = value;
        case "token-file" -> tokenFile = value;
        case "trust" -> trust = Path.of(value);
        default -> {
          try {
            URI uri = URI.create(item);
            if (!"https".equals(uri.getScheme()) && !"http".equals(uri.getScheme())
                || uri.getHost() == null) throw new IllegalArgumentException();
            nodes.add(uri);
          } catch (IllegalArgumentException e) {
            problems.add(
                "'"
                    + item
                    + "' is neither an http(s) URL nor key=, mount=, token-env=, token-file= or trust=");
          }
        }
      }
    }
    if (nodes.isEmpty()) problems.add("no node URL given, e.g. openbao:https://127.0.0.1:8200");
    if (tokenEnv != null && tokenFile != null)
      problems.add("give token-env= or token-file=, not both");
    if (tokenFile != null && !Files.isReadable(Path.of(tokenFile)))
      problems.add("token-file=" + tokenFile + ": no such readable file");
    if (trust != null && !Files.isReadable(trust))
      problems.add("trust=" + trust + ": no such readable file; give a PEM file");
    if (mount.isBlank() || key != null && key.isBlank())
      problems.add("mount= and key= take a name");
    if (!problems.isEmpty())
      throw new IllegalArgumentException(
          "--keys "
              + spec
              + ": "
              + String.join("; ", problems)
              + " (openbao:URL[,URL…][,key=NAME][,mount=transit][,token-env=VAR|token-file=F][,trust=PEM])");
    return new OpenBaoKeySpec(nodes, key, mount, tokenEnv, tokenFile, trust);
  }

  /** How the result names this source: nodes, key and mount, never the token. */
  public String describe() {
    return PREFIX
        + String.join(",", nodes.stream().map(URI::toString).toList())
        + (key == null ? "" : ",key=" + key)
        + (mount.equals("transit") ? "" : ",mount=" + mount);
  }
}
