package io.pkibench.workload.spi;

import io.pkibench.formats.iso20022.Pacs008Pool;
import io.pkibench.formats.iso20022.SpiSignature;
import io.pkibench.keys.SigningKey;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.KeptAnswers;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.util.List;
import java.util.SplittableRandom;
import org.w3c.dom.Document;

/**
 * The pix study's second benchmark and its baseline. Every operation draws a message at random from
 * a pool of generated pacs.008 messages (the draw); {@code random} stops there, so its cost can be
 * subtracted; {@code spi-sign} then parses it, signs it with one signer shared by every worker and
 * writes it out; {@code spi-verify} draws from a pool signed beforehand and verifies.
 */
public final class SpiWorkloads {
  private SpiWorkloads() {}

  public static final String SIGNER = "signer-rsa2048-1";

  /** The three workloads draw from the same kind of pool, so they take the same parameters. */
  abstract static class PoolFactory implements WorkloadFactory {
    @Override
    public final List<ParamSpec> params() {
      List<ParamSpec> params =
          new java.util.ArrayList<>(
              List.of(
                  ParamSpec.free("pool", "1000", "how many different messages to draw from"),
                  ParamSpec.free(
                      "seed",
                      "20201116",
                      "the random source of the messages (the same seed, the same messages)")));
      params.addAll(own());
      return List.copyOf(params);
    }

    /** The parameters of this workload alone, beside the pool's. */
    List<ParamSpec> own() {
      return List.of();
    }
  }

  static Pacs008Pool pool(WorkloadContext context, Params params) {
    int count;
    long seed;
    try {
      count = Integer.parseInt(params.get("pool"));
    } catch (NumberFormatException e) {
      count = -1;
    }
    if (count < 1 || count > 1_000_000)
      throw new IllegalArgumentException(
          "-p pool=" + params.get("pool") + ": give a whole number from 1 to 1000000");
    try {
      seed = Long.parseLong(params.get("seed"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-p seed=" + params.get("seed") + ": give a whole number");
    }
    return Pacs008Pool.generate(count, seed, context.clock().instant());
  }

  /** A worker's draw: the next random index. */
  static final class Draw {
    private final SplittableRandom random;
    private final int size;

    Draw(int worker, int size) {
      this.random = new SplittableRandom(0x5EEDL * 31 + worker);
      this.size = size;
    }

    int next() {
      return random.nextInt(size);
    }
  }

  public static final class Random extends PoolFactory {
    @Override
    public String name() {
      return "random";
    }

    @Override
    public String description() {
      return "only the draw of spi-sign: pick a pool message at random, nothing more (the cost to subtract, as the original's baseline)";
    }

    @Override
    public boolean usesKeys() {
      return false;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) {
      Pacs008Pool pool = pool(context, params);
      return worker -> {
        Draw draw = new Draw(worker, pool.size());
        // The draw alone, as the original's baseline: the index and the message it picks. Parsing
        // belongs to the
        // signature being measured, not to the baseline subtracted from it.
        return () -> {
          byte[] message = pool.get(draw.next());
          if (message.length == 0) throw new IllegalStateException("empty message");
        };
      };
    }
  }

  public static final class Sign extends PoolFactory {
    @Override
    public String name() {
      return "spi-sign";
    }

    @Override
    public String description() {
      return "sign a random pacs.008 PIX message (XMLDSig in AppHdr/Sgntr, three references) with one shared signer, the test PKI's "
          + SIGNER;
    }

    @Override
    List<ParamSpec> own() {
      return List.of(KeptAnswers.SPEC);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      Pacs008Pool pool = pool(context, params);
      SigningKey key = context.keys().key(SIGNER);
      SpiSignature signer = new SpiSignature(key);
      boolean verify = context.verify();
      // the first signed message whose check passed, with the message sent: study pix's samples
      KeptAnswers kept = KeptAnswers.in(params.get(KeptAnswers.PARAM));
      return worker -> {
        Draw draw = new Draw(worker, pool.size());
        if (!verify) {
          return (Operation)
              () -> {
                Document message = SpiSignature.parse(pool.get(draw.next()));
                signer.sign(message);
                SpiSignature.write(message);
              };
        }
        // The key's signature (the key server's answer, under --keys remote:) checked over the
        // message sent, one in --verify-sample
        var sample = context.verifySample(worker);
        return (CheckedOperation)
            () -> {
              byte[] sent = pool.get(draw.next());
              Document message = SpiSignature.parse(sent);
              signer.sign(message);
              byte[] signed = SpiSignature.write(message);
              if (!sample.next()) return false;
              SpiSignature.verify(SpiSignature.parse(signed), signer.certificate());
              kept.keep(signed, sent);
              return true;
            };
      };
    }
  }

  public static final class Verify extends PoolFactory {
    @Override
    public String name() {
      return "spi-verify";
    }

    @Override
    public String description() {
      return "verify a random signed pacs.008 PIX message (signed beforehand by the test PKI's "
          + SIGNER
          + ")";
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      Pacs008Pool pool = pool(context, params);
      SigningKey key = context.keys().key(SIGNER);
      SpiSignature signer = new SpiSignature(key);
      byte[][] signed = new byte[pool.size()][];
      for (int i = 0; i < pool.size(); i++) {
        Document message = SpiSignature.parse(pool.get(i));
        signer.sign(message);
        signed[i] = SpiSignature.write(message);
      }
      return worker -> {
        Draw draw = new Draw(worker, signed.length);
        return () ->
            SpiSignature.verify(SpiSignature.parse(signed[draw.next()]), key.certificate());
      };
    }
  }
}
