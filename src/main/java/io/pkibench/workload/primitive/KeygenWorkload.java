package io.pkibench.workload.primitive;

import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;

/** Generates one key; with {@code --verify}, each new key pair signs and verifies a message. */
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
      return List.of(ParamSpec.choice("alg", "ecdsa-p256", "key type", "rsa2048", "rsa3072", "ecdsa-p256", "ed25519", "aes256"));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      String alg = params.get("alg");
      Provider provider = alg.equals("aes256")
          ? context.keys().provider("KeyGenerator", "AES")
          : context.keys().provider("KeyPairGenerator", jcaKeyType(alg));
      return new KeygenWorkload(alg, provider, context.verify());
    }
  }

  private static String jcaKeyType(String alg) {
    return switch (alg) {
      case "rsa2048", "rsa3072" -> "RSA";
      case "ecdsa-p256" -> "EC";
      default -> "Ed25519";
    };
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    if (alg.equals("aes256")) {
      KeyGenerator generator = KeyGenerator.getInstance("AES", provider);
      generator.init(256);
      return () -> {
        SecretKey key = generator.generateKey();
        if (verify && key.getEncoded().length != 32) throw new IllegalStateException("AES key is not 256 bits");
      };
    }
    KeyPairGenerator generator = KeyPairGenerator.getInstance(jcaKeyType(alg), provider);
    switch (alg) {
      case "rsa2048" -> generator.initialize(2048);
      case "rsa3072" -> generator.initialize(3072);
      case "ecdsa-p256" -> generator.initialize(new ECGenParameterSpec("secp256r1"));
      default -> { }
    }
    String signatureAlgorithm = KeyAlgorithm.parse(alg).signatureAlgorithm;
    byte[] message = {1, 2, 3, 4};
    return () -> {
      KeyPair pair = generator.generateKeyPair();
      if (verify) {
        Signature s = Signature.getInstance(signatureAlgorithm, provider);
        s.initSign(pair.getPrivate());
        s.update(message);
        byte[] signature = s.sign();
        s.initVerify(pair.getPublic());
        s.update(message);
        if (!s.verify(signature)) throw new SignatureException("a freshly generated " + alg + " key pair does not sign and verify");
      }
    };
  }
}
