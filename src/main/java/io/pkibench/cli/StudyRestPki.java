package io.pkibench.cli;

import io.pkibench.plan.MixSpec;
import io.pkibench.study.CheckSizing;
import io.pkibench.study.RestPkiStudy;
import io.pkibench.study.Study;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "restpki",
    mixinStandardHelpOptions = true,
    header =
        "Study 1: sizes a two-phase signing service by transaction type against the service's CPU.",
    description = {
      "Study 1: a two-phase signing service sized by transaction type (authentication, CAdES, CAdES-T, PAdES, PAdES-T, timestamp),",
      "each run alone at the thread count a probe finds drives the service's CPU to ~90%% or stops gaining; the service's CPU measured by pid."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench study restpki --quick                  # about 4 minutes",
      "  pkibench study restpki --quick --profile --html restpki.html   # and where the client's and the service's CPU went",
      "  pkibench study restpki --duration 5m --out restpki.json --html restpki.html --save-samples samples/",
      "  pkibench study restpki --restart-per-type      # a fresh service JVM for each type, as the original",
      "  pkibench study restpki --quick --metrics prometheus-rw=http://127.0.0.1:9090/api/v1/write   # each step's levels live, by step",
      "  pkibench study restpki --quick --service builtin,dss   # our signer and EU DSS's REST services, side by side",
      "  pkibench study restpki --service dss:https://their.host/services/rest --trust their-ca.pem",
      "  pkibench study restpki --mix cades=6,pades=3,timestamp=1 --duration 5m   # the types alone, then as one mix",
      "  pkibench study restpki --quick --agents 4 --local   # one signer, each chosen level run by 4 agent processes, merged",
      "  pkibench study restpki --target https://signer:8443 --concurrency 64 --segment 2/4 --start-at 2026-12-01T10:00:00Z -o agent2.json",
      "                                                   # agent 2 of 4 against a signer elsewhere; 'pkibench merge agent*.json -o restpki.json' adds them",
      "  pkibench study restpki --smoke --types cades       # one type only",
      "  pkibench study restpki --quick --check-sizing      # each type's capacity at 1 core predicted from 0.5 core (cgroup cpu quota), then measured"
    })
final class StudyRestPki extends StudySubcommand {
  @Option(
      names = "--restart-per-type",
      description =
          "restart the service before each transaction type (the original restarted between tests)")
  boolean restartPerType;

  @Option(
      names = "--service",
      defaultValue = "builtin",
      paramLabel = "builtin,dss,dss:URL",
      description =
          "the services to measure, each alone in turn with the same types and levels: builtin (our signer), dss (EU DSS's REST"
              + " services, started by the study), dss:URL (a DSS running elsewhere, its REST root) (default: ${DEFAULT-VALUE})")
  String service;

  @Option(
      names = "--trust",
      paramLabel = "CA.pem",
      description = "the CA certificate an https dss:URL chains to (default: the test PKI's root)")
  Path trust;

  @Option(
      names = "--mix",
      paramLabel = "TYPE=WEIGHT,...",
      description =
          "also size these types together as one traffic mix at the service's CPU, after each alone, e.g. cades=6,pades=3,timestamp=1"
              + " (types: auth, cades, cades-t, pades, pades-t, timestamp)")
  String mix;

  @Option(
      names = "--target",
      paramLabel = "URL",
      description =
          "the built-in signer running elsewhere ('pkibench serve signer' there), e.g. https://signer:8443: the study starts no service"
              + " and measures that one, its CPU not read (it is not here); what each agent of a split study (--segment) gives")
  String target;

  @Mixin CheckSizingOptions sizing = new CheckSizingOptions();

  @Override
  URI clockReference() {
    return target == null ? null : URI.create(target);
  }

  @Option(
      names = "--types",
      split = ",",
      paramLabel = "TYPE,...",
      description =
          "only these transaction types: auth, cades, cades-t, pades, pades-t, timestamp (default: all)")
  List<String> types;

  @Override
  Study study() {
    List<String> problems = new ArrayList<>();
    List<RestPkiStudy.Service> services = RestPkiStudy.Service.parse(service, problems);
    if (target != null) {
      if (!service.equals(RestPkiStudy.Service.BUILTIN))
        problems.add(
            "--target and --service "
                + service
                + ": --target is the built-in signer elsewhere; give one of them");
      URI u = null;
      try {
        u = URI.create(target);
      } catch (IllegalArgumentException e) {
        // said below
      }
      if (u == null
          || !("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
          || u.getHost() == null) {
        problems.add("--target " + target + ": give the signer's URL, e.g. https://signer:8443");
        target = null;
      } else {
        services = List.of(new RestPkiStudy.Service(RestPkiStudy.Service.BUILTIN, target));
      }
    }
    List<RestPkiStudy.Type> only = RestPkiStudy.TYPES;
    if (types != null) {
      only =
          RestPkiStudy.TYPES.stream().filter(t -> types.contains(RestPkiStudy.token(t))).toList();
      for (String t : types) {
        if (RestPkiStudy.TYPES.stream().noneMatch(k -> RestPkiStudy.token(k).equals(t))) {
          problems.add(
              "--types "
                  + t
                  + ": not a transaction type of restpki; use "
                  + String.join(
                      ", ", RestPkiStudy.TYPES.stream().map(RestPkiStudy::token).toList()));
        }
      }
    }
    List<MixSpec.Member> members = List.of();
    if (mix != null) {
      try {
        members = MixSpec.parse("--mix", mix);
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    CheckSizing check = sizing.checkSizing(problems, study.parent.context);
    RestPkiStudy chosen =
        new RestPkiStudy(
                restartPerType,
                services,
                trust == null ? null : study.parent.context.resolve(trust),
                problems,
                members)
            .only(only);
    // --save-samples: the samples are the service's own answers, kept as the steps run
    if (shared.samples != null)
      chosen = chosen.savingSamplesIn(study.parent.context.resolve(shared.samples));
    return check == null ? chosen : chosen.checkingSizing(check);
  }
}
