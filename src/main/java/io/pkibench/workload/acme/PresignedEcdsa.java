package io.pkibench.workload.acme;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * ECDSA P-256 with SHA-256 whose costly half is done before the run. A signature is (r, s) with r
 * the x of k·G for a fresh secret k, and s = k⁻¹(z + r·d) mod n: the point multiplication, most of
 * the cost, depends on neither the message nor the key. Each pair (r, k⁻¹) here was made before the
 * run (a key pair's private scalar is a fresh random k and its public point is k·G) and is used
 * once, then forgotten; what remains per signature is a hash and two multiplications mod n. That
 * keeps an ACME client's seven signatures an order (six JWS requests and a CSR) off the client's
 * CPU while it is measured, as the CSR keys made before the run keep key generation off it: the
 * study's ceiling is then the CA's.
 *
 * <p>When the pairs are used up, signing goes on through the JDK's own ECDSA, counted in {@link
 * #signedWithoutPresign()}, so a run that outlasts its pool is slower but never wrong.
 */
final class PresignedEcdsa {
  /** P-256's group order. */
  static final BigInteger N =
      new BigInteger("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551", 16);

  private final BigInteger[] r;
  private final BigInteger[] kInverse;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicLong withoutPresign = new AtomicLong();

  private PresignedEcdsa(BigInteger[] r, BigInteger[] kInverse) {
    this.r = r;
    this.kInverse = kInverse;
  }

  /** {@code count} pairs, made now on every core: about 0.1 ms of CPU each. */
  static PresignedEcdsa make(int count) throws GeneralSecurityException {
    BigInteger[] r = new BigInteger[count];
    BigInteger[] kInverse = new BigInteger[count];
    int cores = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), count / 256));
    try {
      IntStream.range(0, cores)
          .parallel()
          .forEach(
              part -> {
                try {
                  fill(r, kInverse, count * part / cores, count * (part + 1) / cores);
                } catch (GeneralSecurityException e) {
                  throw new IllegalStateException(e);
                }
              });
    } catch (IllegalStateException e) {
      if (e.getCause() instanceof GeneralSecurityException g) throw g;
      throw e;
    }
    return new PresignedEcdsa(r, kInverse);
  }

  private static void fill(BigInteger[] r, BigInteger[] kInverse, int from, int to)
      throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    for (int i = from; i < to; ) {
      KeyPair pair = g.generateKeyPair();
      BigInteger k = ((ECPrivateKey) pair.getPrivate()).getS();
      BigInteger x = ((ECPublicKey) pair.getPublic()).getW().getAffineX().mod(N);
      if (x.signum() == 0) continue; // r = 0 is no signature; vanishingly rare
      r[i] = x;
      kInverse[i++] = k.modInverse(N);
    }
  }

  /** Pairs made before the run that no signature has taken yet. */
  int left() {
    return Math.max(0, r.length - next.get());
  }

  /** Signatures made by the JDK's ECDSA because the pool was used up. */
  long signedWithoutPresign() {
    return withoutPresign.get();
  }

  /** The signature as JWS ES256 wants it (RFC 7518 §3.4): r and s, 32 bytes each, big-endian. */
  byte[] signRaw(ECPrivateKey key, byte[] message) throws GeneralSecurityException {
    BigInteger[] rs = sign(key, message);
    if (rs == null) return jdk("SHA256withECDSAinP1363Format", key, message);
    byte[] out = new byte[64];
    System.arraycopy(fixed32(rs[0]), 0, out, 0, 32);
    System.arraycopy(fixed32(rs[1]), 0, out, 32, 32);
    return out;
  }

  /** The signature as X.509 and PKCS#10 want it: DER SEQUENCE { INTEGER r, INTEGER s }. */
  byte[] signDer(ECPrivateKey key, byte[] message) throws GeneralSecurityException {
    BigInteger[] rs = sign(key, message);
    if (rs == null) return jdk("SHA256withECDSA", key, message);
    byte[] rBytes = rs[0].toByteArray();
    byte[] sBytes = rs[1].toByteArray();
    int body = 2 + rBytes.length + 2 + sBytes.length; // at most 70: short-form lengths
    byte[] out = new byte[2 + body];
    out[0] = 0x30;
    out[1] = (byte) body;
    out[2] = 0x02;
    out[3] = (byte) rBytes.length;
    System.arraycopy(rBytes, 0, out, 4, rBytes.length);
    int at = 4 + rBytes.length;
    out[at] = 0x02;
    out[at + 1] = (byte) sBytes.length;
    System.arraycopy(sBytes, 0, out, at + 2, sBytes.length);
    return out;
  }

  /** (r, s) from the next unused pair, which is then forgotten; null when none is left. */
  private BigInteger[] sign(ECPrivateKey key, byte[] message) throws GeneralSecurityException {
    if (!isP256(key)) throw new GeneralSecurityException("not a P-256 key");
    int i = next.getAndIncrement();
    if (i >= r.length) {
      next.set(r.length); // stays put, however long the run
      return null;
    }
    BigInteger ri = r[i];
    BigInteger ki = kInverse[i];
    r[i] = null; // a nonce used twice gives the private key away: never again
    kInverse[i] = null;
    // P-256's n has 256 bits, as SHA-256 has: the hash is z whole (FIPS 186-5 §6.4.1)
    BigInteger z = new BigInteger(1, MessageDigest.getInstance("SHA-256").digest(message));
    BigInteger s = ki.multiply(z.add(ri.multiply(key.getS()))).mod(N);
    if (s.signum() == 0) return null; // vanishingly rare: the JDK signs this one
    return new BigInteger[] {ri, s};
  }

  private byte[] jdk(String algorithm, ECPrivateKey key, byte[] message)
      throws GeneralSecurityException {
    withoutPresign.incrementAndGet();
    Signature s = Signature.getInstance(algorithm);
    s.initSign(key);
    s.update(message);
    return s.sign();
  }

  private static boolean isP256(ECPrivateKey key) {
    return key.getParams().getOrder().equals(N)
        && key.getParams().getCurve().getField().getFieldSize() == 256;
  }

  /** {@code value} as 32 big-endian bytes: its sign byte dropped, a short one padded with zeros. */
  static byte[] fixed32(BigInteger value) {
    byte[] b = value.toByteArray();
    byte[] out = new byte[32];
    int from = Math.max(0, b.length - 32);
    System.arraycopy(b, from, out, 32 - (b.length - from), b.length - from);
    return out;
  }
}
