package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pkibench.measure.LatencyHistograms;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencyStripesTest {

  @Test
  void fewWorkers_eachHasItsOwnRecorder() {
    LatencyStripes stripes = new LatencyStripes(3);
    assertEquals(3, stripes.stripes());
    assertNotSame(stripes.forWorker(0), stripes.forWorker(1));
    assertNotSame(stripes.forWorker(1), stripes.forWorker(2));
  }

  @Test
  void manyWorkers_shareABoundedNumberOfRecorders() {
    LatencyStripes stripes = new LatencyStripes(10_000);
    assertEquals(LatencyStripes.MAX_STRIPES, stripes.stripes());
    assertSame(stripes.forWorker(5), stripes.forWorker(5 + LatencyStripes.MAX_STRIPES));
    assertNotSame(stripes.forWorker(5), stripes.forWorker(6));
    assertThrows(IllegalArgumentException.class, () -> new LatencyStripes(0));
  }

  /**
   * 200 threads on shared stripes record while the controller drains every few milliseconds: every
   * value lands in exactly one drain, with its value intact.
   */
  @Test
  void concurrentWritersAndDrains_nothingLostNothingCountedTwice() throws Exception {
    int writers = 200;
    int perWriter = 5_000;
    LatencyStripes stripes = new LatencyStripes(writers);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      go.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    for (int i = 0; i < perWriter; i++)
                      stripes.forWorker(id).recordValue(1_000L * (1 + id % 4));
                  }));
    }
    Histogram total = LatencyHistograms.newHistogram();
    go.countDown();
    while (threads.stream().anyMatch(Thread::isAlive)) {
      stripes.drainInto(total);
      Thread.sleep(2);
    }
    stripes.drainInto(total);
    Histogram again = LatencyHistograms.newHistogram();
    stripes.drainInto(again);

    assertEquals((long) writers * perWriter, total.getTotalCount());
    assertEquals(0, again.getTotalCount(), "a second drain finds nothing new");
    for (int v = 1; v <= 4; v++) {
      assertEquals(
          (long) writers / 4 * perWriter, total.getCountAtValue(1_000L * v), "value " + v + " µs");
    }
  }
}
