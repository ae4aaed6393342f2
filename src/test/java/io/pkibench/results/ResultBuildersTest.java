package io.pkibench.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The builders of RunResult and WorkloadResult make what the record constructors they replace made:
 * a component not named is what the shorter constructors passed for it.
 */
class ResultBuildersTest {
  @Test
  @SuppressWarnings("deprecation") // the old constructors are the reference here
  void workloadBuilder_namingWhatTheShortConstructorsTook_makesTheSameEntry() {
    WorkloadResult.Step step = new WorkloadResult.Step("CAdES", WorkloadResult.Step.MEASURE);
    WorkloadResult built =
        WorkloadResult.builder("sign")
            .params(Map.of("alg", "rsa2048"))
            .keys("software:accp")
            .cpuMeter("jvm")
            .step(step)
            .build();

    assertEquals(
        new WorkloadResult(
            "sign",
            Map.of("alg", "rsa2048"),
            "software:accp",
            "jvm",
            List.of(),
            null,
            step,
            List.of(),
            Map.of(),
            List.of(),
            null,
            null,
            List.of()),
        built);
    assertEquals(List.of(), built.keyNodes());
    assertEquals(Map.of(), built.outcomes());
    assertEquals(List.of(), built.notes());
    assertNull(built.mix());
  }

  @Test
  void workloadToBuilder_changingOneComponent_keepsTheOthers() {
    WorkloadResult entry =
        WorkloadResult.builder("verify")
            .params(Map.of("alg", "ecdsa-p256"))
            .keys("software:jdk")
            .cpuMeter("host")
            .notes(List.of("a note"))
            .outcomes(Map.of("ok", 3L))
            .build();

    WorkloadResult failed = entry.toBuilder().failure("no key").build();

    assertEquals("no key", failed.failure());
    assertEquals(entry, failed.toBuilder().failure(null).build());
    assertEquals(entry.withFailure("no key"), failed);
  }

  @Test
  @SuppressWarnings("deprecation")
  void runBuilder_namingWhatTheShortConstructorsTook_makesTheSameResult() {
    var plan = JsonNodeFactory.instance.objectNode().put("levels", 3);
    WorkloadResult w =
        WorkloadResult.builder("noop").params(Map.of()).keys("none").cpuMeter("jvm").build();

    RunResult built =
        RunResult.builder()
            .schema(RunResult.SCHEMA)
            .plan(plan)
            .status(RunStatus.COMPLETE)
            .workloads(List.of(w))
            .build();

    assertEquals(
        new RunResult(
            RunResult.SCHEMA,
            null,
            plan,
            RunStatus.COMPLETE,
            List.of(w),
            null,
            null,
            null,
            null,
            null,
            null),
        built);
    assertNull(built.thresholds());
    assertEquals(
        RunResult.start(null, plan),
        RunResult.builder().schema(RunResult.SCHEMA).plan(plan).status(RunStatus.RUNNING).build());
    assertEquals(
        built.withStatus(RunStatus.FAILED).toBuilder().status(RunStatus.COMPLETE).build(), built);
  }
}
