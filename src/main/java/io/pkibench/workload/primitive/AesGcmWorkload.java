package io.pkibench.workload.primitive;

import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM encryption of {@code size} bytes with a fresh IV each time; with {@code --verify},
 * another provider decrypts it back.
 */
public final class AesGcmWorkload implements Workload {
  private static final String TRANSFORMATION = "AES/GCM/NoPadding";
  private static final int TAG_BITS = 128;
  private final Provider provider;
  private final int sizeBytes;
  private final boolean verify;

  private AesGcmWorkload(Provider provider, int sizeBytes, boolean verify) {
    this.provider = provider;
    this.sizeBytes = sizeBytes;
    this.verify = verify;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "aes-gcm";
    }

    @Override
    public String description() {
      return "AES-256-GCM encryption of size bytes, a new 12-byte IV each operation";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(ParamSpec.free("size", "1024", "bytes encrypted per operation"));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      return new AesGcmWorkload(
          context.keys().provider("Cipher", TRANSFORMATION),
          params.bytes("size"),
          context.verify());
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    SplittableRandom random = new SplittableRandom(worker);
    byte[] keyBytes = new byte[32];
    random.nextBytes(keyBytes);
    SecretKeySpec key = new SecretKeySpec(keyBytes, "AES");
    byte[] plain = new byte[sizeBytes];
    random.nextBytes(plain);
    byte[] cipherText = new byte[sizeBytes + TAG_BITS / 8];
    // IV = worker (4 bytes) || counter (8 bytes): never repeats under one key, which GCM requires.
    byte[] iv = new byte[12];
    ByteBuffer ivView = ByteBuffer.wrap(iv);
    ivView.putInt(0, worker);
    Cipher encrypt = Cipher.getInstance(TRANSFORMATION, provider);
    Provider checkerProvider =
        verify ? Independent.checkerFor(provider, "Cipher", TRANSFORMATION) : null;
    Cipher decrypt = verify ? Cipher.getInstance(TRANSFORMATION, checkerProvider) : null;
    byte[] decrypted = new byte[sizeBytes];
    long[] counter = {0};
    return () -> {
      ivView.putLong(4, ++counter[0]);
      GCMParameterSpec spec = new GCMParameterSpec(TAG_BITS, iv);
      encrypt.init(Cipher.ENCRYPT_MODE, key, spec);
      int length = encrypt.doFinal(plain, 0, plain.length, cipherText, 0);
      if (decrypt != null) {
        decrypt.init(Cipher.DECRYPT_MODE, key, spec);
        int back = decrypt.doFinal(cipherText, 0, length, decrypted, 0);
        if (back != plain.length || !Arrays.equals(decrypted, plain)) {
          throw new GeneralSecurityException(
              "AES-GCM by "
                  + provider.getName()
                  + " did not decrypt back with "
                  + checkerProvider.getName());
        }
      }
    };
  }
}
