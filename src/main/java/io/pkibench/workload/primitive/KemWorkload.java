package io.pkibench.workload.primitive;

import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.primitive.KemAlgorithm.Decapsulator;
import io.pkibench.workload.primitive.KemAlgorithm.Encapsulated;
import io.pkibench.workload.primitive.KemAlgorithm.Encapsulator;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.Provider;
import java.util.Arrays;
import java.util.List;

/**
 * One key encapsulation (ML-KEM-512/768/1024, or X25519 as the baseline): encapsulate to a key pair
 * made at set-up and decapsulate it back ({@code side=both}), or one side alone. Every operation
 * checks that both sides hold the same secret; {@code --verify} also has another provider
 * decapsulate. {@code input=tampered|truncated|other-set} feeds decapsulation a bad ciphertext,
 * each operation a counted failure.
 */
public final class KemWorkload implements Workload {
  private final KemAlgorithm algorithm;
  private final Provider provider;
  private final String side;
  private final String input;
  private final boolean verify;
  private final KeyPair pair;

  private KemWorkload(
      KemAlgorithm algorithm, Provider provider, String side, String input, boolean verify)
      throws GeneralSecurityException {
    this.algorithm = algorithm;
    this.provider = provider;
    this.side = side;
    this.input = input;
    this.verify = verify;
    this.pair = algorithm.generate(provider);
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "kem";
    }

    @Override
    public String description() {
      return "one key encapsulation + decapsulation (FIPS 203 ML-KEM, or X25519 as the classical baseline)";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.choice("alg", "ml-kem-768", "mechanism", KemAlgorithm.flags()),
          ParamSpec.choice(
              "side", "both", "encaps, decaps, or both per operation", "both", "encaps", "decaps"),
          ParamSpec.choice(
              "input",
              "valid",
              "ciphertext decapsulated: valid, tampered (a byte flipped), truncated (a byte short), "
                  + "other-set (an ML-KEM key of another size decapsulates it)",
              "valid",
              "tampered",
              "truncated",
              "other-set"));
    }

    @Override
    public List<String> problems(Params params, String keys) {
      if (!params.get("input").equals("valid") && params.get("side").equals("encaps")) {
        return List.of(
            "-p input="
                + params.get("input")
                + ": a bad ciphertext is fed to decapsulation; use -p side=decaps or both");
      }
      return List.of();
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      KemAlgorithm alg = KemAlgorithm.parse(params.get("alg"));
      Provider provider = context.keys().provider(alg.serviceType(), alg.jcaName());
      return new KemWorkload(
          alg, provider, params.get("side"), params.get("input"), context.verify());
    }
  }

  /** The provider every operation runs through, for the result. */
  public Provider provider() {
    return provider;
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    Encapsulator encapsulator = algorithm.encapsulator(pair.getPublic(), provider);
    Decapsulator decapsulator = decapsulatorFor(input);
    Provider checkerProvider =
        verify
            ? Independent.checkerFor(provider, algorithm.serviceType(), algorithm.jcaName())
            : null;
    Decapsulator checker =
        verify
            ? algorithm.decapsulator(
                algorithm.translate(pair, checkerProvider).getPrivate(), checkerProvider)
            : null;
    return switch (side) {
      case "encaps" ->
          () -> {
            Encapsulated sent = encapsulator.encapsulate();
            if (checker != null)
              same(sent.sharedSecret(), checker.decapsulate(sent.ciphertext()), checkerProvider);
          };
      case "decaps" -> {
        Encapsulated sent = encapsulator.encapsulate();
        byte[] ciphertext = bad(sent.ciphertext());
        yield () -> {
          same(sent.sharedSecret(), decapsulator.decapsulate(ciphertext), provider);
          if (checker != null)
            same(sent.sharedSecret(), checker.decapsulate(ciphertext), checkerProvider);
        };
      }
      default ->
          () -> {
            Encapsulated sent = encapsulator.encapsulate();
            byte[] ciphertext = bad(sent.ciphertext());
            same(sent.sharedSecret(), decapsulator.decapsulate(ciphertext), provider);
            if (checker != null)
              same(sent.sharedSecret(), checker.decapsulate(ciphertext), checkerProvider);
          };
    };
  }

  private Decapsulator decapsulatorFor(String input) throws GeneralSecurityException {
    if (!input.equals("other-set")) return algorithm.decapsulator(pair.getPrivate(), provider);
    KemAlgorithm other = algorithm.otherParameterSet();
    return other.decapsulator(other.generate(provider).getPrivate(), provider);
  }

  /** The ciphertext as {@code input} says: itself, a byte flipped, or a byte short. */
  private byte[] bad(byte[] ciphertext) {
    return switch (input) {
      case "tampered" -> {
        byte[] copy = ciphertext.clone();
        copy[copy.length / 2] ^= 0x01;
        yield copy;
      }
      case "truncated" -> Arrays.copyOf(ciphertext, ciphertext.length - 1);
      default -> ciphertext;
    };
  }

  private void same(byte[] sent, byte[] received, Provider by) throws GeneralSecurityException {
    if (!Arrays.equals(sent, received)) {
      throw new GeneralSecurityException(
          algorithm.flag
              + " shared secrets differ: "
              + by.getName()
              + " decapsulated another secret than was encapsulated");
    }
  }
}
