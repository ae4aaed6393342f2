package io.pkibench.workload.tls;

import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.SourceAddresses;
import io.pkibench.workload.tls.TlsWorkload.Kind;
import java.util.ArrayList;
import java.util.List;

/** The {@code -p} parameters of the netperf-style workloads of {@link TlsWorkload}, per kind. */
final class EchoParams {
  private EchoParams() {}

  static List<ParamSpec> specs(Kind kind) {
    List<ParamSpec> params =
        new ArrayList<>(
            List.of(
                ParamSpec.free(
                    ParamSpec.TARGET,
                    "",
                    "tls://HOST:PORT or tcp://HOST:PORT, e.g. tls://127.0.0.1:8444 (start one with 'pkibench serve tlsecho')"),
                ParamSpec.free("timeout", "10s", "connect and read timeout")));
    params.addAll(ClientTlsParams.specs());
    params.add(WorkerClients.spec());
    params.add(SourceAddresses.spec());
    switch (kind) {
      case RR -> {
        params.add(ParamSpec.free("size", "128", "bytes each way"));
        params.add(
            ParamSpec.choice(
                "framing",
                "auto",
                "tlsecho: serve tlsecho's request frames; none: raw bytes each way, for any plain"
                    + " echo server (socat); auto: tlsecho's frames until a connection sends a request back whole, header and all, then raw bytes",
                "auto",
                "tlsecho",
                "none"));
      }
      case ACRR -> {
        params.add(ParamSpec.free("request", "64", "request bytes"));
        params.add(ParamSpec.free("response", "8k", "response bytes"));
      }
      case STREAM -> {
        params.add(ParamSpec.free("size", "16k", "bytes per send"));
        params.add(
            ParamSpec.free(
                "ack",
                "16",
                "sends per acknowledgement (tlsecho's protocol), or 'echo': raw bytes, each send read back and"
                    + " compared (any plain TLS echo server, e.g. socat)"));
      }
    }
    return params;
  }
}
