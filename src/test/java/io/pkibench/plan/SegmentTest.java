package io.pkibench.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A plan split over agents: the shares add up to the plan, and what cannot be split is refused,
 * named.
 */
class SegmentTest {

  @Test
  void workers_tenOverFour_sharesSumAndRemainderGoesToTheLowest() {
    List<Integer> shares = new ArrayList<>();
    for (int i = 1; i <= 4; i++) shares.add(new Segment(i, 4).workers(10));
    assertEquals(List.of(3, 3, 2, 2), shares);
  }

  @Test
  void workers_everyLevelAndAgentCount_sharesAddUpToTheLevel() {
    for (int n = 1; n <= 9; n++) {
      for (int level = n; level <= 70; level++) {
        int sum = 0, min = Integer.MAX_VALUE, max = 0;
        for (int i = 1; i <= n; i++) {
          int w = new Segment(i, n).workers(level);
          sum += w;
          min = Math.min(min, w);
          max = Math.max(max, w);
        }
        assertEquals(level, sum, level + " over " + n);
        assertTrue(max - min <= 1, "as even as they go: " + level + " over " + n);
      }
    }
  }

  /**
   * Every agent's arrivals together are the plan's one timetable, each arrival once: k6's
   * interleaved segments.
   */
  @Test
  void share_openLoop_arrivalsInterleaveIntoThePlansTimetable() {
    LevelLoad.Open plan = new LevelLoad.Open(12, 1000);
    long iterationNanos = 1_000_000_000L;
    TreeSet<Long> union = new TreeSet<>();
    int total = 0;
    for (int i = 1; i <= 3; i++) {
      LevelLoad.Open share = (LevelLoad.Open) new Segment(i, 3).share(plan);
      assertEquals(4, share.workers());
      double period = 1e9 / share.ratePerSecond();
      for (long k = 0; share.offsetNanos() + (long) (k * period) < iterationNanos; k++) {
        union.add(share.offsetNanos() + (long) (k * period));
        total++;
      }
    }
    assertEquals(1000, total, "as many arrivals as the plan's");
    assertEquals(1000, union.size(), "none twice");
    long k = 0;
    for (long t : union)
      assertTrue(Math.abs(t - k++ * 1_000_000L) <= 1, "arrival " + (k - 1) + " at " + t);
  }

  @Test
  void problems_levelSmallerThanAgents_namesTheLevelAndTheCount() {
    List<String> problems = new Segment(2, 4).problems(new LoadModel.Closed(List.of(2, 8, 3)));
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).contains("the level of 2 workers cannot be split over 4 agents"),
        problems.get(0));
    assertTrue(problems.get(1).contains("the level of 3 workers"), problems.get(1));
    assertTrue(new Segment(2, 4).problems(new LoadModel.Closed(List.of(4, 8))).isEmpty());
    assertEquals(1, new Segment(1, 4).problems(new LoadModel.Open(List.of(100.0), 3)).size());
  }

  @Test
  void parse_badText_saysHowToWriteIt() {
    assertEquals(new Segment(2, 4), Segment.parse("2/4"));
    for (String bad : List.of("2", "0/4", "5/4", "a/4", "/4")) {
      var e = assertThrows(IllegalArgumentException.class, () -> Segment.parse(bad), bad);
      assertTrue(e.getMessage().contains("e.g. 2/4"), e.getMessage());
    }
  }
}
