package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.remote.NodeAddress;
import io.pkibench.keys.remote.RemoteKeySource;
import io.pkibench.server.keyserver.KeyGrants;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.server.keyserver.KeyService;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rsfn study checks the answers of the nodes it measures: its plans, run against a real key
 * server node (in this JVM, on loopback) whose keys flip a bit of every signature they make, count
 * every packing failed; against an honest node, every packing and unpacking is verified. Seen
 * failing before the study's plans checked (every packing of the planted node counted done).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RsfnStudyVerifiesTest {
  static final int OPERATIONS = 12;

  @TempDir static Path dir;
  static TestKeys fixture;
  final List<AutoCloseable> open = new ArrayList<>();

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open.reversed()) c.close();
  }

  /** A node that packs and unpacks RSFN with {@code keys}, as {@code serve keyserver} builds it. */
  KeyServer node(KeySource keys) throws Exception {
    var rsfn =
        Protocol3.forTestPki(
            fixture.pki, CaCodes.defaults(), InstantSource.system(), KeyService.localProvider());
    var service =
        new KeyService(
            keys,
            fixture.keys.aliases(),
            KeyGrants.everyKeyFor(fixture.pki.certificate("tls-client")),
            rsfn,
            line -> {});
    SigningKey identity =
        new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("keyserver");
    KeyServer server =
        new KeyServer(
            service,
            identity,
            fixture.pki.certificate("root-ca"),
            "127.0.0.1",
            0,
            KeyServer.Limits.defaults());
    server.start();
    open.add(server);
    return server;
  }

  RemoteKeySource client(KeyServer node) throws Exception {
    var source =
        new RemoteKeySource(
            List.of(new NodeAddress("127.0.0.1", node.port(), 1)),
            new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("tls-client"),
            fixture.pki.certificate("root-ca"),
            InstantSource.system(),
            line -> {});
    open.add(source);
    return source;
  }

  /** The study's step {@code label}, planned as the study plans it. */
  static Step step(String label) throws Exception {
    var study = new RsfnStudy(List.of(1, 4));
    var options = new StudyOptions(true, Duration.ofSeconds(10), "software", dir, null);
    try (RunningServices services =
        RunningServices.plan(study.services(options), List.of("java"), Map.of(), line -> {})) {
      return study.steps(options, services).stream()
          .filter(s -> s.label().equals(label))
          .findFirst()
          .orElseThrow();
    }
  }

  /** {@code OPERATIONS} of the step's workload through {@code keys}, as one worker runs them. */
  static StepOperations.Tally run(Step step, KeySource keys) throws Exception {
    return StepOperations.run(step.plan(), keys, () -> fixture.pki, OPERATIONS);
  }

  @Test
  void packaging_aNodeWhoseSignaturesAreWrong_everyOperationCountedFailed() throws Exception {
    KeyServer planted = node(FaultyKeys.flippingEveryOutput(fixture.keys));
    StepOperations.Tally t = run(step(RsfnStudy.PACK), client(planted));
    assertEquals(0, t.ok(), "a packing whose signature does not verify is not done: " + t);
    assertEquals(OPERATIONS, t.failed(), t.toString());
  }

  @Test
  void packingAndUnpacking_anHonestNode_everyOperationVerified_clientStepSamples()
      throws Exception {
    RemoteKeySource honest = client(node(fixture.keys));
    for (String label : List.of(RsfnStudy.PACK, RsfnStudy.UNPACK)) {
      StepOperations.Tally t = run(step(label), honest);
      assertEquals(new StepOperations.Tally(OPERATIONS, OPERATIONS, 0, List.of()), t, label);
      StepOperations.Tally client = run(step(label + RsfnStudy.CLIENT_CPU), honest);
      assertEquals(OPERATIONS, client.ok(), label + RsfnStudy.CLIENT_CPU + ": " + client);
      assertEquals(
          1, client.verified(), "the client-CPU step checks the first, then one in 100: " + client);
    }
  }
}
