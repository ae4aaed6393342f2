package io.pkibench.workload.primitive;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.KeptAnswers;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifySample;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Signs {@code size} bytes with the test PKI's first signer of {@code alg}; with {@code --verify},
 * another provider checks each signature.
 */
public final class SignWorkload implements Workload {
  private final SigningKey key;
  private final KeyAlgorithm algorithm;
  private final int sizeBytes;
  private final boolean verify;

  /** Each worker's choice of which signatures it checks ({@code --verify-sample}). */
  private final IntFunction<VerifySample> verifySample;

  /** The first signature whose check passed, with what it signed: study pqc's samples. */
  private final KeptAnswers kept;

  public SignWorkload(
      SigningKey key,
      KeyAlgorithm algorithm,
      int sizeBytes,
      boolean verify,
      IntFunction<VerifySample> verifySample,
      KeptAnswers kept) {
    this.key = key;
    this.algorithm = algorithm;
    this.sizeBytes = sizeBytes;
    this.verify = verify;
    this.verifySample = verifySample;
    this.kept = kept;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "sign";
    }

    @Override
    public String description() {
      return "one signature over size bytes with the key the --keys source holds";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.choice(
              "alg", "rsa2048", "key type (the test PKI's signer-ALG-1)", KeyAlgorithm.flags()),
          ParamSpec.free("size", "1024", "bytes signed per operation (1024, 137k, 1m)"),
          KeptAnswers.SPEC);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
      SigningKey key = context.keys().key(Entity.signerAlias(alg, 1));
      return new SignWorkload(
          key,
          alg,
          params.bytes("size"),
          context.verify(),
          context::verifySample,
          KeptAnswers.in(params.get(KeptAnswers.PARAM)));
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    byte[] data = new byte[sizeBytes];
    new SplittableRandom(worker).nextBytes(data);
    Signature signer = Signature.getInstance(algorithm.signatureAlgorithm, key.provider());
    signer.initSign(key.privateKey());
    if (!verify) {
      return () -> {
        signer.update(data);
        signer.sign();
      };
    }
    Provider checkerProvider =
        Independent.checkerFor(key.provider(), "Signature", algorithm.signatureAlgorithm);
    Signature checker = Signature.getInstance(algorithm.signatureAlgorithm, checkerProvider);
    PublicKey publicKey = Independent.publicKeyFor(key.publicKey(), checkerProvider);
    checker.initVerify(publicKey);
    // Each signature (one in --verify-sample) verified by another provider: ok counts them
    VerifySample sample = verifySample.apply(worker);
    return (CheckedOperation)
        () -> {
          signer.update(data);
          byte[] signature = signer.sign();
          if (!sample.next()) return false;
          checker.update(data);
          boolean verified;
          try {
            verified = checker.verify(signature);
          } catch (SignatureException malformed) {
            // a signature too damaged to decode (an ECDSA DER header flipped) does not verify
            // either:
            // the same failure, its detail kept
            checker.initVerify(publicKey);
            throw new SignatureException(
                "signature made by "
                    + key.provider().getName()
                    + " does not verify with "
                    + checkerProvider.getName()
                    + ": "
                    + malformed.getMessage(),
                malformed);
          }
          if (!verified) {
            throw new SignatureException(
                "signature made by "
                    + key.provider().getName()
                    + " does not verify with "
                    + checkerProvider.getName());
          }
          kept.keep(signature, data);
          return true;
        };
  }
}
