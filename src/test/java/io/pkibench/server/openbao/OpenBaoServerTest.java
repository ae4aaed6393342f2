package io.pkibench.server.openbao;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.TlsContexts;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.openbao.Transit;
import io.pkibench.pki.Secret;
import io.pkibench.testing.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real bao, started as serve openbao starts it: one node, then what it was set up with. */
class OpenBaoServerTest {
  @TempDir Path dir;

  @Test
  void start_oneNode_unsealedWithTheTestPkisKeysInTransitAndTokenInAnOwnerOnlyFile()
      throws Exception {
    TestKeys keys = TestKeys.in(dir);
    OpenBaoServer server = BaoFixture.start(dir.resolve("bao"), 1, keys.pki);
    long pid;
    try {
      pid = server.pid();
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(server.tokenFile())));
      Secret token = Secret.fromFile(server.tokenFile());
      try (OpenBaoClient client =
          new OpenBaoClient(
              server.urls(),
              token,
              TlsContexts.trusting(keys.pki.certificate("root-ca")),
              Duration.ofSeconds(10))) {
        assertEquals(0, server.leader());
        // the imported key is the test PKI's: its chain is set, and transit's signature verifies
        // with the certificate's public key (the JDK, not OpenBao, checks it)
        JsonNode key = client.get("transit/keys/signer-ecdsa-p256-1");
        JsonNode version = key.path("data").path("keys").path("1");
        X509Certificate leaf =
            PemKeys.certificates(
                    version.path("certificate_chain").asText().getBytes(StandardCharsets.US_ASCII))
                .get(0);
        assertEquals(keys.pki.certificate("signer-ecdsa-p256-1"), leaf);
        byte[] message = "pkibench".getBytes(StandardCharsets.UTF_8);
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(message);
        String signature =
            client
                .post(
                    "transit/sign/signer-ecdsa-p256-1/sha2-256",
                    Map.of("input", Transit.base64(digest), "prehashed", true))
                .path("data")
                .path("signature")
                .asText();
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(leaf.getPublicKey());
        verifier.update(message);
        assertTrue(verifier.verify(Transit.valueBytes(signature)));
        // the TLS client's key too: study pix --keys openbao: handshakes with it through its key
        // servers
        assertEquals(
            keys.pki.certificate("tls-client"),
            PemKeys.certificates(
                    client
                        .get("transit/keys/tls-client")
                        .path("data")
                        .path("keys")
                        .path("1")
                        .path("certificate_chain")
                        .asText()
                        .getBytes(StandardCharsets.US_ASCII))
                .get(0));
        assertEquals(
            "pki",
            client.get("sys/mounts").path("data").path("pki/").path("type").asText(),
            "the pki mount");
      } finally {
        token.wipe();
      }
    } finally {
      server.close();
    }
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "bao stopped");
  }
}
