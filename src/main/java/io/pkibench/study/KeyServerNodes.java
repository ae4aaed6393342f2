package io.pkibench.study;

import io.pkibench.results.StudyRecord;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The two key-server nodes the pix and rsfn studies start, each its own JVM, and the {@code
 * remote:} source over both, 50/50 as the originals weighted them.
 */
final class KeyServerNodes {
  static final String NODE_1 = "keyserver-1";
  static final String NODE_2 = "keyserver-2";

  /**
   * The originals' condition (pix, rsfn): the client was not the bottleneck, so the rates are the
   * key servers'. Read from the data as the nodes near saturation: below 90% of the cores,
   * something else (the client, the shared cores) held the rate back.
   */
  static final StudyRecord.Condition CONDITION =
      new StudyRecord.Condition(
          "the client not the bottleneck: the key servers near saturation", 0.9);

  private KeyServerNodes() {}

  static List<ServiceSpec> services(StudyOptions options) {
    List<ServiceSpec> nodes = new ArrayList<>();
    for (String name : List.of(NODE_1, NODE_2)) {
      List<String> args =
          new ArrayList<>(
              List.of("keyserver", "--pki", options.pkiDir().toString(), "--keys", options.keys()));
      if (options.pinFile() != null)
        args.addAll(List.of("--pin-file", options.pinFile().toString()));
      nodes.add(new ServiceSpec(name, args, "grpcs"));
    }
    return nodes;
  }

  static String remoteKeys(RunningServices services) {
    StringBuilder keys = new StringBuilder("remote:");
    for (String node : List.of(NODE_1, NODE_2)) {
      URI url = URI.create(services.url(node));
      if (keys.length() > "remote:".length()) keys.append(',');
      keys.append(url.getHost()).append(':').append(url.getPort()).append("=50");
    }
    return keys.toString();
  }

  /**
   * What a study over these nodes refuses: runs under a second, and {@code --keys remote:} (the
   * nodes hold their keys themselves: {@code --keys} says where, software or a token).
   */
  static List<String> problems(StudyOptions options) {
    List<String> problems = new ArrayList<>();
    if (options.duration().compareTo(Duration.ofSeconds(1)) < 0)
      problems.add("--duration: each run lasts at least 1s, e.g. --duration 10s (the original's)");
    if (options.keys().startsWith("remote:")) {
      problems.add(
          "--keys "
              + options.keys()
              + ": the study starts its own key-server nodes; --keys says where their keys live (software or pkcs11:CONFIG)");
    }
    return problems;
  }
}
