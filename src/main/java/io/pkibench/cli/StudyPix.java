package io.pkibench.cli;

import io.pkibench.study.CheckSizing;
import io.pkibench.study.CoreRatioSweep;
import io.pkibench.study.PixStudy;
import io.pkibench.study.Study;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "pix",
    mixinStandardHelpOptions = true,
    header =
        "Study 2: the PIX SPI's mutual-TLS handshake and ISO 20022 message signature, keys on two key-server nodes.",
    description = {
      "Study 2: the PIX SPI's mTLS 1.2 handshake (two SSLEngines in memory) and ISO 20022 SPI message signature, the client's",
      "key on two key-server nodes (50/50, each its own JVM), swept over concurrency as the original's JMH runs (5 series, each in a",
      "fresh JVM, of 5+ warm-up and 5 measured iterations of --duration); then random, the message draw to subtract. CPU: the key servers'."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench study pix --quick                       # a few minutes",
      "  pkibench study pix --html pix.html                # the original's methodology: about 2 hours",
      "  pkibench study pix --keys pkcs11:softhsm.cfg --pin-file pin.txt   # the nodes' keys on a token",
      "  pkibench study pix --quick --fault kill-node@20s  # and a node killed mid-run: the dip and the recovery",
      "  pkibench study pix --quick --keys openbao:https://127.0.0.1:8200,https://127.0.0.1:8202,https://127.0.0.1:8204,token-file=bao-run/root-token \\",
      "      --fault kill-leader@20s                      # keys in OpenBao (serve openbao --nodes 3 --dir bao-run), its leader killed",
      "  pkibench study pix --quick --check-sizing         # each benchmark's capacity at 1 core of the nodes predicted from 0.5 core, then measured",
      "  pkibench study pix --quick --core-ratio-sweep 1:1,2:1,1:2,2:2,1:3,2:3,2:4,3:4,2:5   # 8 cores: the client:key-server ratio (docs/studies.md)"
    })
final class StudyPix extends StudySubcommand {
  @Mixin CheckSizingOptions sizing = new CheckSizingOptions();

  @Option(
      names = "--fault",
      paramLabel = "kill-node@TIME|kill-leader@TIME",
      description =
          "add a step that SIGKILLs the first key-server node TIME into its measured seconds and starts it again 10 s later, e.g."
              + " kill-node@30s; or, with --keys openbao: over a cluster (serve openbao --nodes 3), kill-leader@TIME SIGKILLs the"
              + " OpenBao Raft leader (serve openbao starts it again): failed calls, time until the rate is back, who led after")
  String fault;

  @Option(
      names = "--core-ratio-sweep",
      paramLabel = "C:S[,C:S...]",
      description =
          "only the SPI signature, once per split of the cores: C for the client, S for the two key-server nodes together, each split's nodes"
              + " restarted on their cores; then the ratio from which one more core on either side stops paying (gains under 10%%, its"
              + " spread added). Every split must fit this machine's cores, e.g. on 8: 1:1,2:1,1:2,2:2,1:3,2:3,2:4,3:4,2:5")
  String coreRatioSweep;

  @Override
  Study study() {
    try {
      List<String> problems = new ArrayList<>();
      CheckSizing check = sizing.checkSizing(problems, study.parent.context);
      if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
      PixStudy pix = new PixStudy(PixStudy.Fault.parse(fault));
      if (coreRatioSweep != null)
        pix = pix.sweepingCoreRatios(CoreRatioSweep.parse(coreRatioSweep));
      // --save-samples: the SPI sample is the measured run's own first checked signature
      if (shared.samples != null)
        pix = pix.savingSamplesIn(study.parent.context.resolve(shared.samples));
      return check == null ? pix : pix.checkingSizing(check);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
