package io.pkibench.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanBuilderTest {
  static final List<WorkloadSpec> SIGN = List.of(new WorkloadSpec("sign", Map.of(), "software"));

  @Test
  void of_unsetSettings_takeTheDocumentedDefaults() {
    Plan built =
        Plan.of(SIGN)
            .concurrency(List.of(1, 2))
            .warmup(Iterations.parse("1x1s"))
            .measure(Iterations.parse("3x1s"))
            .build();
    assertEquals(
        new Plan(
            SIGN,
            new LoadModel.Closed(List.of(1, 2)),
            Iterations.parse("1x1s"),
            Iterations.parse("3x1s"),
            1,
            ThreadKind.PLATFORM,
            false,
            "jvm"),
        built);
  }

  @Test
  void toBuilder_changesOnlyWhatItIsTold() {
    Plan original =
        new Plan(
            SIGN,
            new LoadModel.Open(List.of(50.0), 8),
            Iterations.parse("2x1s"),
            Iterations.parse("5x2s"),
            3,
            ThreadKind.VIRTUAL,
            true,
            "services");
    assertEquals(original, original.toBuilder().build());
    Plan one = original.toBuilder().concurrency(List.of(16)).cpu("client").build();
    assertEquals(
        new Plan(
            SIGN,
            new LoadModel.Closed(List.of(16)),
            original.warmup(),
            original.measure(),
            3,
            ThreadKind.VIRTUAL,
            true,
            "client"),
        one);
  }

  @Test
  void build_withoutLoadOrIterations_refusesNamingWhatIsMissing() {
    var e =
        assertThrows(
            IllegalStateException.class,
            () ->
                Plan.of(SIGN)
                    .warmup(Iterations.parse("1x1s"))
                    .measure(Iterations.parse("1x1s"))
                    .build());
    assertEquals("a plan needs its load, warm-up and measured iterations", e.getMessage());
  }
}
