package io.pkibench.formats.rsfn;

import io.pkibench.keys.SigningKey;
import io.pkibench.testing.Mutations;
import io.pkibench.testing.TestProvider;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Mutated envelopes into {@link Protocol3#unpack}: header bytes set to edge values, a bit of the
 * body or a block flipped, or any of {@link Mutations#bytes}. Nothing may escape as an exception,
 * and an accepted envelope must carry the original payload (a mutation may only touch what the
 * protocol does not protect, e.g. C04 0 → 4). The suite runs a few thousand inputs; {@code
 * bench/rsfn-fuzz} runs a million.
 */
public final class Protocol3Fuzz {
  /** What a run found: inputs, accepted, refused by code, and the slowest single unpack. */
  public record Outcome(
      long inputs,
      long accepted,
      long compressedForm,
      long[] refusedByCode,
      long slowestNanos,
      String violation) {}

  public static Outcome run(long inputs, long seed) throws Exception {
    SigningKey sender = RsfnFixture.key("sender", TestProvider.chosen());
    SigningKey recipient = RsfnFixture.key("recipient", TestProvider.chosen());
    Protocol3 codec =
        new Protocol3(
            CaCodes.defaults(),
            List.of(RsfnFixture.crl("serpro-empty.crl")),
            RsfnFixture.CLOCK,
            TestProvider.chosen().providerFor("Cipher", "AES/GCM/NoPadding"),
            new java.security.SecureRandom(),
            1 << 20);
    byte[] payload = RsfnFixture.payload();
    List<byte[]> seeds =
        List.of(
            codec.pack(sender, recipient.certificate(), payload, Treatment.NORMAL),
            codec.pack(sender, recipient.certificate(), payload, Treatment.FILE_COMPRESSED),
            codec.pack(sender, recipient.certificate(), payload, Treatment.CLEAR));
    SplittableRandom random = new SplittableRandom(seed);
    long accepted = 0, compressedForm = 0, slowest = 0;
    long[] refused = new long[256];
    for (long i = 0; i < inputs; i++) {
      byte[] input = mutate(seeds.get(random.nextInt(seeds.size())), random);
      long start = System.nanoTime();
      Unpacked result;
      try {
        result = codec.unpack(recipient, sender.certificate(), input);
      } catch (Throwable t) {
        return new Outcome(
            i + 1, accepted, compressedForm, refused, slowest, "input " + i + " threw " + t);
      }
      slowest = Math.max(slowest, System.nanoTime() - start);
      if (result == null)
        return new Outcome(
            i + 1, accepted, compressedForm, refused, slowest, "input " + i + " gave no result");
      if (result.ok()) {
        if (Arrays.equals(result.payload(), payload)) {
          accepted++;
        } else if (Arrays.equals(gunzip(result.payload()), payload)) {
          compressedForm++;
        } else {
          return new Outcome(
              i + 1,
              accepted,
              compressedForm,
              refused,
              slowest,
              "input " + i + " was accepted with another payload");
        }
      } else {
        refused[result.error().code]++;
        if (result.answerHeader().length != SecurityHeader.LENGTH) {
          return new Outcome(
              i + 1,
              accepted,
              compressedForm,
              refused,
              slowest,
              "input " + i + ": answer header not 588 bytes");
        }
      }
    }
    return new Outcome(inputs, accepted, compressedForm, refused, slowest, null);
  }

  private static byte[] gunzip(byte[] data) {
    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(data))) {
      return in.readNBytes(1 << 20);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  /**
   * The protocol's own damage (a header byte to an edge value, one bit of the body or a block),
   * else any of {@link Mutations#bytes}.
   */
  static byte[] mutate(byte[] seed, SplittableRandom r) {
    byte[] b = seed.clone();
    switch (r.nextInt(3)) {
      case 0 -> { // one header byte to an edge value
        int[] edges = {0x00, 0x01, 0x02, 0x03, 0x7F, 0x80, 0xFF};
        b[r.nextInt(SecurityHeader.LENGTH)] = (byte) edges[r.nextInt(edges.length)];
      }
      case 1 -> { // one bit in the body or a block
        int at = SecurityHeader.LENGTH - 512 + r.nextInt(b.length - SecurityHeader.LENGTH + 512);
        b[at] ^= (byte) (1 << r.nextInt(8));
      }
      default -> b = Mutations.bytes(seed, r); // bytes changed, cut, extended, repeated, noise
    }
    return b;
  }

  /** {@code Protocol3Fuzz [INPUTS] [SEED]}: prints the outcome; exits 1 on a violation. */
  public static void main(String[] args) throws Exception {
    long inputs = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 20_240_901;
    long start = System.nanoTime();
    Outcome o = run(inputs, seed);
    double seconds = (System.nanoTime() - start) / 1e9;
    StringBuilder codes = new StringBuilder();
    for (int c = 0; c < 256; c++)
      if (o.refusedByCode()[c] > 0)
        codes.append(String.format(" 0x%02X:%d", c, o.refusedByCode()[c]));
    System.out.printf(
        "rsfn unpack fuzz: %d inputs in %.1f s (%.0f/s), %d accepted with the original payload, %d with its signed gzip form (C04 8 → 4),"
            + " refused by C03:%s; slowest unpack %.1f ms; max heap %d MB%n",
        o.inputs(),
        seconds,
        o.inputs() / seconds,
        o.accepted(),
        o.compressedForm(),
        codes,
        o.slowestNanos() / 1e6,
        Runtime.getRuntime().maxMemory() >> 20);
    if (o.violation() != null) {
      System.out.println("VIOLATION: " + o.violation());
      System.exit(1);
    }
  }
}
