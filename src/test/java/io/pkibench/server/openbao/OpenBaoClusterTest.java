package io.pkibench.server.openbao;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.testing.TestKeys;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Signature;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * serve openbao --nodes 3: a Raft cluster of real bao servers on loopback. A key source given every
 * node signs through it, goes on signing after the leader is SIGKILLed (a standby takes over), and
 * the killed node rejoins when started again.
 */
class OpenBaoClusterTest {
  @TempDir Path dir;

  @Test
  void threeNodes_leaderKilled_signingGoesOnAndTheNodeRejoins() throws Exception {
    TestKeys keys = TestKeys.in(dir);
    OpenBaoServer server = BaoFixture.start(dir.resolve("bao"), 3, keys.pki);
    try {
      int leader = server.leader();
      assertEquals(0, leader, "node 0 was initialised: it leads");
      String nodes = String.join(",", server.urls().stream().map(URI::toString).toList());
      try (KeySource source =
          KeySources.open(
              "openbao:" + nodes + ",token-file=" + server.tokenFile(),
              () -> keys.pki,
              null,
              Map.of(),
              InstantSource.system(),
              l -> {})) {
        SigningKey key = source.key("signer-ecdsa-p256-1");
        sign(key, keys);
        server.kill(leader);
        long deadline = System.nanoTime() + 60_000_000_000L;
        Exception last = null;
        boolean signedAgain = false;
        while (!signedAgain && System.nanoTime() < deadline) {
          try {
            sign(key, keys);
            signedAgain = true;
          } catch (Exception e) {
            last = e; // no leader yet: the election takes a few seconds
            Thread.sleep(500);
          }
        }
        assertTrue(signedAgain, "no signature within 60 s of killing the leader: " + last);
        // the node that serves may take a moment more to say it leads
        int newLeader = -1;
        for (int tries = 0; tries < 60 && newLeader < 0; tries++) {
          newLeader = server.leader();
          if (newLeader < 0) Thread.sleep(500);
        }
        assertTrue(newLeader >= 0 && newLeader != leader, "a standby leads now: " + newLeader);
        assertTrue(
            source.nodes().get(leader).failures() > 0 || source.nodes().get(newLeader).calls() > 0,
            "the calls moved off the killed node: " + source.nodes());
        server.restart(leader);
        assertNotEquals(-1, server.leader());
        assertEquals(newLeader, server.leader(), "the restarted node rejoined as a standby");
      }
    } finally {
      server.close();
    }
  }

  private static void sign(SigningKey key, TestKeys keys) throws Exception {
    byte[] message = "raft".getBytes(StandardCharsets.UTF_8);
    Signature s = Signature.getInstance("SHA256withECDSA", key.provider());
    s.initSign(key.privateKey());
    s.update(message);
    byte[] signature = s.sign();
    Signature v = Signature.getInstance("SHA256withECDSA");
    v.initVerify(keys.pki.certificate("signer-ecdsa-p256-1").getPublicKey());
    v.update(message);
    assertTrue(v.verify(signature));
  }
}
