package io.pkibench.cli;

import io.pkibench.study.RsfnStudy;
import io.pkibench.study.Study;
import picocli.CommandLine.Command;

@Command(
    name = "rsfn",
    mixinStandardHelpOptions = true,
    header =
        "Study 3: RSFN protocol 3 packing and unpacking by two key-server nodes, 1 to 512 calls pending.",
    description = {
      "Study 3: RSFN security protocol 3 packaging and unpackaging of 1 KiB, done by two key-server nodes (50/50, each its own JVM)",
      "for a client keeping 1 to 512 calls pending on virtual threads. Each level: restart both nodes, one run discarded, five kept.",
      "CPU: the nodes' (both pids); each operation again at 64 pending calls on the client's CPU."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench study rsfn --quick                      # about 3 minutes",
      "  pkibench study rsfn --html rsfn.html              # the original's sweep, 11 levels of 6 runs of 10 s: about 30 minutes",
      "  pkibench study rsfn --keys pkcs11:softhsm.cfg --pin-file pin.txt   # the nodes' keys on a token"
    })
final class StudyRsfn extends StudySubcommand {
  @Override
  Study study() {
    // --save-samples: the packed sample is the measured run's own first checked envelope
    return shared.samples == null
        ? new RsfnStudy()
        : new RsfnStudy().savingSamplesIn(study.parent.context.resolve(shared.samples));
  }
}
