package io.pkibench.keys.remote;

import java.util.ArrayList;
import java.util.List;

/** One key-server node of a {@code remote:HOST:PORT[=WEIGHT],…} spec. */
public record NodeAddress(String host, int port, int weight) {
  public static final int DEFAULT_WEIGHT = 1;

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** Parses the part after {@code remote:}; every bad entry is named in one message. */
  public static List<NodeAddress> parseAll(String nodes) {
    List<NodeAddress> out = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    if (nodes.isBlank()) problems.add("name at least one node, e.g. remote:127.0.0.1:9443");
    for (String entry : nodes.split(",")) {
      if (entry.isBlank()) continue;
      try {
        out.add(parse(entry.strip()));
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (out.stream().map(NodeAddress::toString).distinct().count() < out.size())
      problems.add("a node is named twice; give it a weight instead");
    if (!problems.isEmpty())
      throw new IllegalArgumentException(
          "--keys remote:" + nodes + ": " + String.join("; ", problems));
    return List.copyOf(out);
  }

  static NodeAddress parse(String entry) {
    int weight = DEFAULT_WEIGHT;
    String address = entry;
    int eq = entry.lastIndexOf('=');
    if (eq >= 0) {
      address = entry.substring(0, eq);
      try {
        weight = Integer.parseInt(entry.substring(eq + 1));
      } catch (NumberFormatException e) {
        weight = -1;
      }
      if (weight < 1 || weight > 1000)
        throw new IllegalArgumentException(
            entry + ": the weight after = is a whole number from 1 to 1000");
    }
    String host;
    String port;
    if (address.startsWith("[")) {
      int close = address.indexOf("]:");
      if (close < 0)
        throw new IllegalArgumentException(entry + ": write an IPv6 node as [ADDRESS]:PORT");
      host = address.substring(1, close);
      port = address.substring(close + 2);
    } else {
      int colon = address.lastIndexOf(':');
      if (colon <= 0 || address.indexOf(':') != colon)
        throw new IllegalArgumentException(entry + ": write HOST:PORT (IPv6 as [ADDRESS]:PORT)");
      host = address.substring(0, colon);
      port = address.substring(colon + 1);
    }
    int p;
    try {
      p = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      p = -1;
    }
    if (p < 1 || p > 65535)
      throw new IllegalArgumentException(entry + ": the port is a number from 1 to 65535");
    return new NodeAddress(host, p, weight);
  }
}
