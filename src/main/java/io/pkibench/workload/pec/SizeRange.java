package io.pkibench.workload.pec;

import io.pkibench.workload.api.Params;
import java.util.SplittableRandom;

/**
 * Message sizes as the original's mailer drew them: one size ({@code 60k}) or a range drawn
 * uniformly ({@code 56k..80k}).
 */
public record SizeRange(int minBytes, int maxBytes) {
  public static final int SMALLEST = 512;
  public static final int LARGEST = 64 << 20;

  public SizeRange {
    if (minBytes < SMALLEST || maxBytes < minBytes || maxBytes > LARGEST) {
      throw new IllegalArgumentException("a size of 512 bytes to 64m, or a range like 56k..80k");
    }
  }

  /** {@code 60k} or {@code 56k..80k}; the message says what is allowed. */
  public static SizeRange parse(String text) {
    String[] parts = text.split("\\.\\.", -1);
    if (parts.length > 2)
      throw new IllegalArgumentException(
          "'" + text + "': write a size of 512 bytes to 64m, or a range like 56k..80k");
    int lo = Params.parseBytes(parts[0]);
    int hi = parts.length == 2 ? Params.parseBytes(parts[1]) : lo;
    try {
      return new SizeRange(lo, hi);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "': write " + e.getMessage());
    }
  }

  public int draw(SplittableRandom random) {
    return minBytes == maxBytes ? minBytes : random.nextInt(minBytes, maxBytes + 1);
  }

  @Override
  public String toString() {
    return minBytes == maxBytes ? Integer.toString(minBytes) : minBytes + ".." + maxBytes;
  }
}
