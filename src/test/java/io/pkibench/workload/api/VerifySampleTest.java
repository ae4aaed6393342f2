package io.pkibench.workload.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerifySampleTest {
  private static boolean[] checks(int every, int worker, int operations) {
    VerifySample sample = new VerifySample(every, worker);
    boolean[] checked = new boolean[operations];
    for (int i = 0; i < operations; i++) checked[i] = sample.next();
    return checked;
  }

  @Test
  void workerZero_theFirstThenEachEveryth() {
    List<Boolean> seen = new ArrayList<>();
    for (boolean b : checks(3, 0, 7)) seen.add(b);
    assertEquals(List.of(true, false, false, true, false, false, true), seen);
    assertEquals(seen, asList(new VerifySample(3), 7), "the one-argument sample is worker 0's");
  }

  @Test
  void everyWorker_checksItsFirst_thenOneInEvery() {
    for (int worker = 0; worker < 64; worker++) {
      boolean[] checked = checks(100, worker, 10_000);
      assertTrue(checked[0], "worker " + worker + "'s first");
      int n = 0;
      for (boolean b : checked) if (b) n++;
      assertTrue(n == 100 || n == 101, "worker " + worker + ": " + n + " of 10,000");
    }
  }

  /**
   * The study's client-CPU step that checked nothing: 16 workers, one in 100, a measured time of 45
   * operations a worker after a warm-up of 45. Shifted, any such stretch checks about 16 × 45 /
   * 100; in step (every worker as worker 0), the same stretch checked none.
   */
  @Test
  void sixteenWorkers_anyStretchShorterThanEvery_checksAboutItsShare() {
    int workers = 16, every = 100, stretch = 45;
    boolean[][] checked = new boolean[workers][];
    for (int w = 0; w < workers; w++) checked[w] = checks(every, w, 1_000);
    int fewest = Integer.MAX_VALUE, most = 0;
    for (int from = 1; from + stretch <= 1_000; from++) {
      int n = 0;
      for (boolean[] worker : checked)
        for (int i = from; i < from + stretch; i++) if (worker[i]) n++;
      fewest = Math.min(fewest, n);
      most = Math.max(most, n);
    }
    assertTrue(fewest >= 5 && most <= 10, "checks in a stretch: " + fewest + " to " + most);

    int inStep = 0;
    for (int w = 0; w < workers; w++) {
      boolean[] asWorkerZero = checks(every, 0, 1_000);
      for (int i = 45; i < 90; i++) if (asWorkerZero[i]) inStep++;
    }
    assertEquals(0, inStep, "all in step: the stretch from 45 to 90 checks nothing");
  }

  @Test
  void belowOne_orANegativeWorker_refused() {
    assertThrows(IllegalArgumentException.class, () -> new VerifySample(0, 0));
    assertThrows(IllegalArgumentException.class, () -> new VerifySample(3, -1));
  }

  private static List<Boolean> asList(VerifySample sample, int n) {
    List<Boolean> seen = new ArrayList<>();
    for (int i = 0; i < n; i++) seen.add(sample.next());
    return seen;
  }
}
