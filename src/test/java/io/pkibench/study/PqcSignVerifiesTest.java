package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.KeySource;
import io.pkibench.plan.Plan;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pqc study's sign steps check one signature in {@link PqcStudy#SIGN_VERIFY_SAMPLE} with
 * another provider (the check would sit in the CPU they measure) and count it verified: a provider
 * flipping a bit of every signature has its sampled ones failed, the honest one its sampled ones
 * verified. Seen failing before the sign steps checked (nothing verified, nothing failed). Every
 * other pqc step counts no verified, as its notes say.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PqcSignVerifiesTest {
  static final int OPERATIONS = PqcStudy.SIGN_VERIFY_SAMPLE + 1;

  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static List<Step> steps() throws Exception {
    var study = new PqcStudy();
    var options = new StudyOptions(true, Duration.ofSeconds(1), "software", dir, null);
    try (RunningServices services =
        RunningServices.plan(study.services(options), List.of("java"), Map.of(), line -> {})) {
      return study.steps(options, services);
    }
  }

  static StepOperations.Counts run(Plan plan, KeySource keys) throws Exception {
    return StepOperations.run(plan, keys, () -> fixture.pki, OPERATIONS).counts();
  }

  @Test
  void signSteps_flippedSignatures_sampledOnesFailed_honestOnesVerified() throws Exception {
    List<Step> steps = steps();
    for (String label :
        List.of(
            PqcStudy.label("sign", "ml-dsa-65", "software:jdk"),
            PqcStudy.label("sign", "ecdsa-p256", "software:jdk"),
            PqcStudy.label("sign", "rsa2048", "software:jdk"))) {
      Plan plan =
          steps.stream()
              .filter(s -> s.label().equals(label))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no step " + label))
              .plan();
      assertEquals(new StepOperations.Counts(OPERATIONS, 2, 0), run(plan, fixture.keys), label);
      // the test's bit-flipping provider has no ML-DSA: the classical signers carry the fault
      if (label.contains("ml-dsa")) continue;
      assertEquals(
          new StepOperations.Counts(OPERATIONS - 2, 0, 2),
          run(plan, FaultyKeys.flippingEveryOutput(fixture.keys)),
          label + ": a provider whose signatures are wrong");
    }
    for (Step s : steps) {
      if (s.plan() == null || s.plan().workloads().get(0).name().equals("sign")) continue;
      assertTrue(
          !s.plan().verify() || !s.plan().cpu().equals("client"),
          s.label() + ": no check per operation in a step charging this JVM's CPU");
    }
  }
}
