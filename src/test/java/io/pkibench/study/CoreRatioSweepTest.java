package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.CpuSet;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sweep's splits on a machine larger than the one the suite runs on: an 8-CPU split of the
 * cores as {@code --service-cpus auto} makes it, which cores each split gives each side, and which
 * splits are refused.
 */
class CoreRatioSweepTest {
  /** 8 CPUs, the first half the services' and the rest the client's, as auto splits them. */
  static final CpuSplit EIGHT = CpuSplit.defaultFor(CpuSet.range(0, 7));

  static final String EIGHT_CORE_GRID = "1:1,2:1,1:2,2:2,1:3,2:3,2:4,3:4,2:5";

  @Test
  void docsEightCoreGrid_fitsEightCores_andEachSplitGetsItsOwnCores() {
    CoreRatioSweep sweep = CoreRatioSweep.parse(EIGHT_CORE_GRID);
    assertEquals(List.of(), sweep.problems(EIGHT));
    assertEquals(7, sweep.coresNeeded());
    Step spi =
        Step.of(
            "SPI signature",
            Plan.of(List.of(new WorkloadSpec("spi-sign", Map.of(), "software")))
                .concurrency(List.of(56))
                .warmup(Iterations.parse("1x500ms"))
                .measure(Iterations.parse("3x2s"))
                .build());
    List<Step> steps = sweep.steps(spi, EIGHT);
    assertEquals(9, steps.size());
    Step twoFive = steps.get(8);
    assertEquals("SPI signature, client:service cores 2:5", twoFive.label());
    assertEquals(
        List.of("restart the key servers on CPU 0-4 and move the client to CPU 5-6"), // 7 left free
        twoFive.beforeStep().stream().map(StepHook::describe).toList());
    assertEquals(spi.plan(), twoFive.plan(), "every split measures the same plan");
    assertEquals(
        "restart the key servers on CPU 0 and move the client to CPU 1",
        steps.get(0).beforeStep().get(0).describe());
  }

  @Test
  void splitLargerThanTheMachine_refusedInOneLineNamingEachAndTheCoresNeeded() {
    assertEquals(List.of(), CoreRatioSweep.parse("1:1,4:4").problems(EIGHT), "4:4 fills 8 cores");
    List<String> problems = CoreRatioSweep.parse("1:1,4:5,4:4,3:7").problems(EIGHT);
    assertEquals(
        List.of(
            "--core-ratio-sweep 1:1,4:5,4:4,3:7: this machine cannot test the ratio: it has 8 cores (CPU 0-7) and split 4:5"
                + " needs 9, split 3:7 needs 10; run the sweep on a machine with at least 10 cores (docs/studies.md, 'The core"
                + " ratio sweep')"),
        problems);
  }

  @Test
  void sharedCores_refused_theSweepGivesEachSideItsOwn() throws Exception {
    int here = CpuAffinity.ofThisProcess().size();
    assertTrue(here >= 2, "1:1 needs 2 cores; this process has " + here);
    assertEquals(
        List.of(
            "--core-ratio-sweep with --service-cpus shared: the sweep gives the client and the key servers cores of their own"
                + " at each split; leave out --service-cpus"),
        CoreRatioSweep.parse("1:1").problems(CpuSplit.shared()));
  }

  @Test
  void badSplits_everyOneNamed() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CoreRatioSweep.parse("0:1,1:1,1:1,a:b,3"));
    List<String> lines = e.getMessage().lines().toList();
    assertEquals(4, lines.size(), e.getMessage());
    assertTrue(
        lines.get(0).endsWith("split 0:1 gives a side no core; each gets 1 or more"), lines.get(0));
    assertTrue(lines.get(1).endsWith("split 1:1 is given twice"), lines.get(1));
    assertTrue(lines.get(2).contains("'a:b' is not CLIENT:SERVICE cores"), lines.get(2));
    assertTrue(lines.get(3).contains("'3' is not CLIENT:SERVICE cores"), lines.get(3));
  }
}
