package io.pkibench.cli;

import io.pkibench.study.PqcStudy;
import io.pkibench.study.Study;
import picocli.CommandLine.Command;

@Command(
    name = "pqc",
    mixinStandardHelpOptions = true,
    header =
        "Study 6: what post-quantum cryptography costs per CPU-second beside RSA, ECDSA and X25519, and in TLS 1.3.",
    description = {
      "What the move to post-quantum cryptography costs: ML-DSA, SLH-DSA and ML-KEM keygen, sign, verify,",
      "encapsulate and decapsulate per CPU-second beside RSA, ECDSA, Ed25519 and X25519, through each provider that has them; TLS 1.3",
      "handshakes per server CPU-second and bytes each way, x25519 against the hybrid X25519MLKEM768 (BoringSSL); and, as a check,",
      "the cores each study's bound operation needs for a target rate today and after the migration."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench study pqc --quick                                   # about 4 minutes",
      "  pkibench study pqc --quick --save-samples pqc-samples/        # raw FIPS 204/203 samples and check-pqc.py (dilithium-py, kyber-py)"
    })
final class StudyPqc extends StudySubcommand {
  @Override
  Study study() {
    // --save-samples: the ML-DSA signatures are the measured steps' own first checked ones
    return shared.samples == null
        ? new PqcStudy()
        : new PqcStudy().savingSamplesIn(study.parent.context.resolve(shared.samples));
  }
}
