package io.pkibench.workload.primitive;

import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.Provider;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Hashes {@code size} bytes; with {@code --verify}, each digest is compared with another
 * provider's.
 */
public final class DigestWorkload implements Workload {
  private static final Map<String, String> JCA_NAMES =
      Map.of(
          "sha1",
          "SHA-1",
          "sha256",
          "SHA-256",
          "sha384",
          "SHA-384",
          "sha512",
          "SHA-512",
          "sha3-256",
          "SHA3-256");
  private final Provider provider;
  private final String algorithm;
  private final int sizeBytes;
  private final boolean verify;

  private DigestWorkload(Provider provider, String algorithm, int sizeBytes, boolean verify) {
    this.provider = provider;
    this.algorithm = algorithm;
    this.sizeBytes = sizeBytes;
    this.verify = verify;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "digest";
    }

    @Override
    public String description() {
      return "one message digest over size bytes";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.choice(
              "alg",
              "sha256",
              "digest algorithm",
              "sha1",
              "sha256",
              "sha384",
              "sha512",
              "sha3-256"),
          ParamSpec.free("size", "1024", "bytes hashed per operation"));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      String jca = JCA_NAMES.get(params.get("alg"));
      return new DigestWorkload(
          context.keys().provider("MessageDigest", jca),
          jca,
          params.bytes("size"),
          context.verify());
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    byte[] data = new byte[sizeBytes];
    new SplittableRandom(worker).nextBytes(data);
    MessageDigest digest = MessageDigest.getInstance(algorithm, provider);
    byte[] out = new byte[digest.getDigestLength()];
    if (!verify) {
      return () -> {
        digest.update(data);
        digest.digest(out, 0, out.length);
      };
    }
    byte[] expected =
        MessageDigest.getInstance(
                algorithm, Independent.checkerFor(provider, "MessageDigest", algorithm))
            .digest(data);
    return () -> {
      digest.update(data);
      digest.digest(out, 0, out.length);
      if (!Arrays.equals(out, expected))
        throw new DigestException(
            algorithm + " by " + provider.getName() + " differs from the independent digest");
    };
  }
}
