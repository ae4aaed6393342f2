package io.pkibench.workload.primitive;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifiesWithKeySource;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Verifies one signature over {@code size} bytes, made once at set-up, with the key source's
 * provider. {@code input=tampered|truncated|other-set} verifies a bad one instead (a byte flipped,
 * a byte short, or with a key of another parameter set): each operation must then fail, counted,
 * with the verifier's reason. With {@code --verify}, a second provider ({@link Independent}: not
 * the one measured) gives its verdict on the same signature once at set-up, and an operation whose
 * verdict differs from it fails: a provider that accepts a bad signature, or refuses a good one, is
 * caught.
 */
public final class VerifyWorkload implements Workload {
  private final SigningKey key;
  private final KeyAlgorithm algorithm;
  private final int sizeBytes;
  private final String input;
  private final boolean verify;

  private VerifyWorkload(
      SigningKey key, KeyAlgorithm algorithm, int sizeBytes, String input, boolean verify) {
    this.key = key;
    this.algorithm = algorithm;
    this.sizeBytes = sizeBytes;
    this.input = input;
    this.verify = verify;
  }

  public static final class Factory implements WorkloadFactory, VerifiesWithKeySource {
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
      List<ParamSpec> params = new ArrayList<>(new SignWorkload.Factory().params());
      params.add(
          ParamSpec.choice(
              "input",
              "valid",
              "signature verified: valid, tampered (a byte flipped), truncated (a byte short), "
                  + "other-set (checked with a key of another parameter set or size)",
              "valid",
              "tampered",
              "truncated",
              "other-set"));
      return params;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
      return new VerifyWorkload(
          context.keys().key(Entity.signerAlias(alg, 1)),
          alg,
          params.bytes("size"),
          params.get("input"),
          context.verify());
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    byte[] data = new byte[sizeBytes];
    new SplittableRandom(worker).nextBytes(data);
    Signature signer = Signature.getInstance(algorithm.signatureAlgorithm, key.provider());
    signer.initSign(key.privateKey());
    signer.update(data);
    byte[] signature =
        switch (input) {
          case "tampered" -> {
            byte[] s = signer.sign();
            s[s.length / 2] ^= 0x01;
            yield s;
          }
          case "truncated" -> {
            byte[] s = signer.sign();
            yield Arrays.copyOf(s, s.length - 1);
          }
          default -> signer.sign();
        };
    Signature verifier = Signature.getInstance(algorithm.signatureAlgorithm, key.provider());
    PublicKey verifyingKey =
        input.equals("other-set")
            ? PostQuantumKeys.otherParameterSet(algorithm, key.provider())
            : PostQuantumKeys.publicKeyIn(key, algorithm, key.provider());
    verifier.initVerify(verifyingKey);
    Provider independent =
        verify
            ? Independent.checkerFor(key.provider(), "Signature", algorithm.signatureAlgorithm)
            : null;
    boolean independentVerdict =
        verify && independentlyValid(data, signature, verifyingKey, independent);
    String refusal =
        input.equals("valid")
            ? "a valid signature did not verify"
            : "a " + input + " " + algorithm.flag + " signature was refused";
    return () -> {
      verifier.update(data);
      boolean valid = verifier.verify(signature);
      if (verify && valid != independentVerdict)
        throw new SignatureException(
            key.provider().getName()
                + (valid ? " accepts" : " refuses")
                + " a "
                + input
                + " "
                + algorithm.flag
                + " signature that "
                + independent.getName()
                + (independentVerdict ? " accepts" : " refuses"));
      if (!valid) throw new SignatureException(refusal);
    };
  }

  /** The second provider's verdict; a signature it cannot even decode is not valid. */
  private boolean independentlyValid(
      byte[] data, byte[] signature, PublicKey verifyingKey, Provider independent)
      throws GeneralSecurityException {
    Signature checker = Signature.getInstance(algorithm.signatureAlgorithm, independent);
    checker.initVerify(Independent.publicKeyFor(verifyingKey, independent));
    checker.update(data);
    try {
      return checker.verify(signature);
    } catch (SignatureException undecodable) {
      return false;
    }
  }
}
