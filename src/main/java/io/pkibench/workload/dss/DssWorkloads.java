package io.pkibench.workload.dss;

import io.pkibench.keys.PemKeys;
import io.pkibench.keys.TlsContexts;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * What the dss:* workloads share: where DSS's REST services are, and whom to trust when they speak
 * HTTPS.
 */
final class DssWorkloads {
  private DssWorkloads() {}

  static final ParamSpec TARGET =
      ParamSpec.free(
          ParamSpec.TARGET,
          "",
          "DSS's REST root, e.g. http://127.0.0.1:8085/services/rest (start one with 'pkibench serve dss')");
  static final ParamSpec TRUST =
      ParamSpec.free(
          "trust",
          "",
          "PEM file of the CA an https target's certificate chains to (default: the test PKI's root)");

  static List<String> problems(Params params) {
    List<String> problems = new ArrayList<>();
    String target = params.get(ParamSpec.TARGET);
    if (!target.isEmpty()) {
      try {
        URI uri = URI.create(target);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
            || uri.getHost() == null) {
          problems.add(
              "--target " + target + ": give DSS's REST root as http(s)://HOST:PORT/services/rest");
        }
      } catch (IllegalArgumentException e) {
        problems.add(
            "--target "
                + target
                + ": not a URL ("
                + e.getMessage()
                + "); e.g. http://127.0.0.1:8085/services/rest");
      }
    }
    String trust = params.get("trust");
    if (!trust.isEmpty() && !Files.isReadable(Path.of(trust)))
      problems.add(
          "-p trust=" + trust + ": no such readable file; give the CA's certificate in PEM");
    return problems;
  }

  /** A client of {@code --target}, checked to be reachable now. */
  static DssClient client(WorkloadContext context, Params params) throws Exception {
    String target = params.get(ParamSpec.TARGET);
    if (target.isEmpty())
      throw new IllegalArgumentException(
          "--target: give DSS's REST root, e.g. --target http://127.0.0.1:8085/services/rest");
    URI base = URI.create(target.endsWith("/") ? target : target + "/");
    String trust = params.get("trust");
    X509Certificate root;
    if (trust.isEmpty()) {
      root = context.pki().get().certificate("root-ca");
    } else {
      try {
        root = PemKeys.certificate(Files.readAllBytes(Path.of(trust)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("-p trust=" + trust + ": " + e.getMessage());
      }
    }
    // Whether DSS answers is asked by the run's check before it measures: one real request, never a
    // bare connect.
    return new DssClient(base, TlsContexts.trusting(root));
  }
}
