package io.pkibench.workload.primitive;

import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;

/**
 * Generates one key. With {@code --verify}: each new signature key pair signs a message with the
 * measured provider and a second provider ({@link Independent}) verifies it; each key-encapsulation
 * pair decapsulates, with the measured provider, what it encapsulated (a check of the provider by
 * itself: the private key cannot leave it for another); an AES key must be 256 bits.
 */
public final class KeygenWorkload implements Workload {
  private final String alg;
  private final Provider provider;
  private final boolean verify;

  private KeygenWorkload(String alg, Provider provider, boolean verify) {
    this.alg = alg;
    this.provider = provider;
    this.verify = verify;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "keygen";
    }

    @Override
    public String description() {
      return "generates one key pair (or AES-256 key)";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.choice("alg", "ecdsa-p256", "key type", ALGORITHMS.toArray(String[]::new)));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      String alg = params.get("alg");
      Provider provider =
          alg.equals("aes256")
              ? context.keys().provider("KeyGenerator", "AES")
              : context.keys().provider("KeyPairGenerator", jcaKeyType(alg));
      return new KeygenWorkload(alg, provider, context.verify());
    }
  }

  /**
   * Signature keys (the test PKI's types, post-quantum ones included), key-encapsulation keys, and
   * AES-256.
   */
  private static final List<String> ALGORITHMS;

  static {
    var names = new ArrayList<String>();
    for (String a : KeyAlgorithm.flags()) names.add(a);
    for (String a : KemAlgorithm.flags()) names.add(a);
    names.add("aes256");
    ALGORITHMS = List.copyOf(names);
  }

  private static boolean isKem(String alg) {
    return Arrays.asList(KemAlgorithm.flags()).contains(alg);
  }

  /** The JCA name of the key pair generator. */
  private static String jcaKeyType(String alg) {
    return isKem(alg) ? KemAlgorithm.parse(alg).jcaName() : KeyAlgorithm.parse(alg).jcaKeyType();
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    if (alg.equals("aes256")) {
      KeyGenerator generator = KeyGenerator.getInstance("AES", provider);
      generator.init(256);
      return () -> {
        SecretKey key = generator.generateKey();
        if (verify && key.getEncoded().length != 32)
          throw new IllegalStateException("AES key is not 256 bits");
      };
    }
    KeyPairGenerator generator = KeyPairGenerator.getInstance(jcaKeyType(alg), provider);
    switch (alg) {
      case "rsa2048" -> generator.initialize(2048);
      case "rsa3072" -> generator.initialize(3072);
      case "ecdsa-p256" -> generator.initialize(new ECGenParameterSpec("secp256r1"));
      default -> {}
    }
    if (isKem(alg)) {
      KemAlgorithm kem = KemAlgorithm.parse(alg);
      return () -> {
        KeyPair pair = generator.generateKeyPair();
        if (verify) {
          var sent = kem.encapsulator(pair.getPublic(), provider).encapsulate();
          if (!Arrays.equals(
              sent.sharedSecret(),
              kem.decapsulator(pair.getPrivate(), provider).decapsulate(sent.ciphertext()))) {
            throw new GeneralSecurityException(
                "a freshly generated "
                    + alg
                    + " key pair does not decapsulate what it encapsulated");
          }
        }
      };
    }
    String signatureAlgorithm = KeyAlgorithm.parse(alg).signatureAlgorithm;
    byte[] message = {1, 2, 3, 4};
    Provider independent =
        verify ? Independent.checkerFor(provider, "Signature", signatureAlgorithm) : null;
    return () -> {
      KeyPair pair = generator.generateKeyPair();
      if (verify) {
        Signature s = Signature.getInstance(signatureAlgorithm, provider);
        s.initSign(pair.getPrivate());
        s.update(message);
        byte[] signature = s.sign();
        Signature checker = Signature.getInstance(signatureAlgorithm, independent);
        checker.initVerify(Independent.publicKeyFor(pair.getPublic(), independent));
        checker.update(message);
        boolean verified;
        try {
          verified = checker.verify(signature);
        } catch (SignatureException undecodable) {
          verified = false;
        }
        if (!verified)
          throw new SignatureException(
              "a freshly generated "
                  + alg
                  + " key pair's signature by "
                  + provider.getName()
                  + " does not verify with "
                  + independent.getName());
      }
    };
  }
}
