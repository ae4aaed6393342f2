package io.pkibench.analysis;

import io.pkibench.keys.remote.NodeAddress;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a workload of a result is, for matching it with the same workload of another run: its role,
 * not the ports its run happened to get. Every study run (and many plain runs) gives its services
 * and key-server nodes free loopback ports, so a port names nothing across runs: a study's step is
 * its label, role and workload; key-server nodes are their order and weight ({@code
 * remote:node1=50,node2=50}); a loopback address in a parameter or key source is the study's
 * service listening there, by name, or {@code loopback}.
 */
public record WorkloadIdentity(String text) {
  /**
   * A loopback endpoint as the runner and the CLI write them: {@code 127.0.0.1:PORT}, {@code
   * localhost:PORT}, {@code [::1]:PORT}.
   */
  private static final Pattern LOOPBACK =
      Pattern.compile("(?:127\\.0\\.0\\.1|localhost|\\[::1]):(\\d{1,5})");

  public static WorkloadIdentity of(RunResult run, WorkloadResult w) {
    Map<Integer, String> services = servicesByPort(run.study());
    String keys = keys(w.keys(), services);
    if (w.step() != null)
      return new WorkloadIdentity(
          w.step().label() + " (" + w.step().role() + ", " + w.name() + ") @" + keys);
    Map<String, String> params = new LinkedHashMap<>();
    w.params().forEach((k, v) -> params.put(k, endpoints(v, services)));
    return new WorkloadIdentity(Analysis.label(w.name(), params) + " @" + keys);
  }

  @Override
  public String toString() {
    return text;
  }

  private static Map<Integer, String> servicesByPort(StudyRecord study) {
    Map<Integer, String> names = new LinkedHashMap<>();
    if (study != null)
      for (StudyRecord.ServiceRecord s : study.services()) names.put(s.port(), s.name());
    return names;
  }

  /**
   * {@code remote:} nodes by their order and weight; any other source with its loopback endpoints
   * named.
   */
  static String keys(String keys, Map<Integer, String> services) {
    if (keys == null) return "none";
    if (!keys.startsWith("remote:")) return endpoints(keys, services);
    List<NodeAddress> nodes;
    try {
      nodes = NodeAddress.parseAll(keys.substring("remote:".length()));
    } catch (IllegalArgumentException e) {
      return endpoints(keys, services); // not ours to judge here: matched as written, ports aside
    }
    List<String> roles = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++)
      roles.add("node" + (i + 1) + "=" + nodes.get(i).weight());
    return "remote:" + String.join(",", roles);
  }

  static String endpoints(String value, Map<Integer, String> services) {
    Matcher m = LOOPBACK.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = services.get(Integer.parseInt(m.group(1)));
      m.appendReplacement(out, Matcher.quoteReplacement(name != null ? name : "loopback"));
    }
    return m.appendTail(out).toString();
  }
}
