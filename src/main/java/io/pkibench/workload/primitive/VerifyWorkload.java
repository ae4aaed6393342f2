package io.pkibench.workload.primitive;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.security.Signature;
import java.security.SignatureException;
import java.util.List;
import java.util.SplittableRandom;

/** Verifies one signature over {@code size} bytes, made once at set-up, with the key source's provider. */
public final class VerifyWorkload implements Workload {
  private final SigningKey key;
  private final KeyAlgorithm algorithm;
  private final int sizeBytes;

  private VerifyWorkload(SigningKey key, KeyAlgorithm algorithm, int sizeBytes) {
    this.key = key;
    this.algorithm = algorithm;
    this.sizeBytes = sizeBytes;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "verify";
    }

    @Override
    public String description() {
      return "one signature verification over size bytes";
    }

    @Override
    public List<ParamSpec> params() {
      return new SignWorkload.Factory().params();
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
      return new VerifyWorkload(context.keys().key(Entity.signerAlias(alg, 1)), alg, params.bytes("size"));
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    byte[] data = new byte[sizeBytes];
    new SplittableRandom(worker).nextBytes(data);
    Signature signer = Signature.getInstance(algorithm.signatureAlgorithm, key.provider());
    signer.initSign(key.privateKey());
    signer.update(data);
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance(algorithm.signatureAlgorithm, key.provider());
    verifier.initVerify(key.publicKey());
    return () -> {
      verifier.update(data);
      if (!verifier.verify(signature)) throw new SignatureException("a valid signature did not verify");
    };
  }
}
