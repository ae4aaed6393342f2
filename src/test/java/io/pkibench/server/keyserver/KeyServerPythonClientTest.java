package io.pkibench.server.keyserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.session.ForkedSeries;
import io.pkibench.study.ServiceProcess;
import io.pkibench.testing.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key server's contract held by a peer we did not write: a client in Python, on gRPC's own
 * Python implementation (grpcio), its stubs compiled at test time from src/main/proto by
 * grpcio-tools, calls a node that {@code serve keyserver} started in its own JVM, over the node's
 * mutual TLS. Until now only pkibench's Java stubs had talked to the node: a contract the .proto
 * files state but the Java side reads the same wrong way would pass every other test.
 *
 * <p>The client (grpc_client.py beside this class's resources) reports each call's status and what
 * came back; each signature is verified there with Python's {@code cryptography} against the
 * certificate GetChain handed out, and here again with BouncyCastle against the test PKI's
 * certificate: the bytes the peer received, two verifiers that share no code with the node.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES) // a node JVM and a Python client on a loaded machine
class KeyServerPythonClientTest {
  /** Where ./test installs the client's packages, in a venv of their own. */
  static final Path VENV_PYTHON = Path.of("/opt/pkibench/grpc-venv/bin/python");

  static final String INSTALL =
      "./test installs it (as root), or: /usr/bin/python3 -m venv /opt/pkibench/grpc-venv &&"
          + " /opt/pkibench/grpc-venv/bin/pip install grpcio grpcio-tools cryptography";

  /** What the client signs (grpc_client.py's {@code message}). */
  static final byte[] MESSAGE =
      "pacs.008 stand-in: a message the key server signs for a Python client"
          .getBytes(StandardCharsets.US_ASCII);

  static final BouncyCastleProvider BC = new BouncyCastleProvider();

  @TempDir Path dir;

  @Test
  void pythonGrpcClient_callsV1AndV2_signaturesVerify_andEachBadRequestGetsItsStatus()
      throws Exception {
    requireVenv();
    TestKeys fixture = TestKeys.in(dir);
    JsonNode report;
    try (ServiceProcess node =
        ServiceProcess.start(
            ForkedSeries.thisJvm(),
            List.of(
                "serve",
                "keyserver",
                "--port",
                "0", // the node picks its port and says it in its ready line
                "--threads",
                "2",
                "--max-request",
                "64k",
                "--pki",
                fixture.pki.dir().toString()),
            Map.of("PATH", System.getenv("PATH")))) {
      int port = Integer.parseInt(node.url().substring(node.url().lastIndexOf(':') + 1));
      report = runClient(fixture.pki.dir(), port);
    }

    // v1: the keys granted to tls-client, and not the node's own TLS identity
    assertEquals("OK", report.at("/listKeys/code").asText(), report.get("listKeys").toString());
    Set<String> aliases = new TreeSet<>();
    report.at("/listKeys/aliases").forEach(a -> aliases.add(a.asText()));
    assertTrue(
        aliases.containsAll(
            List.of(
                "signer-ecdsa-p256-1", "signer-rsa2048-1", "signer-rsa2048-2", "signer-ed25519-1")),
        aliases.toString());
    assertFalse(aliases.contains("keyserver"), "not granted, not listed: " + aliases);

    // v1: each scheme signed, its certificate the test PKI's, its signature valid in both verifiers
    List<String> signed = new ArrayList<>();
    for (JsonNode sign : report.get("sign")) {
      String alias = sign.get("alias").asText();
      String scheme = sign.get("scheme").asText();
      assertEquals("OK", sign.get("code").asText(), sign.toString());
      assertArrayEquals(
          fixture.pki.certificate(alias).getEncoded(),
          Base64.getDecoder().decode(sign.get("certificate").asText()),
          alias + ": GetChain hands out the test PKI's certificate");
      assertVerifies(fixture, alias, scheme, sign);
      signed.add(scheme);
    }
    assertEquals(List.of("ECDSA", "RSA_PSS", "RSA_PKCS1_V1_5", "ED25519"), signed);

    // v1 refusals: the status the contract names for each; an alias the node does not hold looks
    // like one not granted (the node does not tell a client which aliases exist)
    assertEquals("PERMISSION_DENIED", report.at("/refusals/notGranted/code").asText());
    assertEquals("PERMISSION_DENIED", report.at("/refusals/notHeld/code").asText());
    assertEquals("INVALID_ARGUMENT", report.at("/refusals/schemeTheKeyCannotDo/code").asText());
    assertEquals(
        "RESOURCE_EXHAUSTED",
        report.at("/refusals/largerThanTheNodeAccepts/code").asText(),
        "100 KB to a node of --max-request 64k: " + report.get("refusals"));
    assertEquals(
        "UNAVAILABLE",
        report.at("/withoutClientCertificate/code").asText(),
        "mutual TLS: no client certificate, no connection");

    // v2: five calls in two messages on one stream, each answered by its id; id 4 refused alone
    JsonNode stream = report.get("stream");
    assertEquals("OK", stream.get("code").asText(), stream.toString());
    Set<Long> ids = new TreeSet<>();
    for (JsonNode result : stream.get("results")) {
      long id = result.get("id").asLong();
      ids.add(id);
      if (id == 4) {
        assertEquals(7, result.get("status").asInt(), "PERMISSION_DENIED, as v1: " + result);
        assertTrue(result.get("message").asText().contains("keyserver"), result.toString());
      } else {
        assertEquals(0, result.get("status").asInt(), result.toString());
        assertVerifies(
            fixture, result.get("alias").asText(), result.get("scheme").asText(), result);
      }
    }
    assertEquals(Set.of(1L, 2L, 3L, 4L, 5L), ids, "each call answered once: " + stream);

    // v2 at the stated limit of 256 calls a message: 256 are all signed, 257 end the stream
    // unsigned
    JsonNode atLimit = report.get("streamAtLimit");
    assertEquals("OK", atLimit.get("code").asText(), atLimit.toString());
    assertEquals(256, atLimit.get("signed").asInt(), atLimit.toString());
    assertEquals(256, atLimit.get("ids").size(), "each id answered once");
    JsonNode pastLimit = report.get("streamPastLimit");
    assertEquals("RESOURCE_EXHAUSTED", pastLimit.get("code").asText(), pastLimit.toString());
    assertEquals(0, pastLimit.get("answered").asInt(), "none of the 257 signed: " + pastLimit);
    JsonNode noRequest = report.get("streamCallWithoutRequest");
    assertEquals("INVALID_ARGUMENT", noRequest.get("code").asText(), noRequest.toString());
    assertEquals(0, noRequest.get("answered").asInt(), "the stream ends unanswered: " + noRequest);
  }

  /**
   * Python's verdicts (the signature over the message verifies, over a changed message not) and
   * BouncyCastle's over the same bytes, against the test PKI's certificate for {@code alias}.
   */
  static void assertVerifies(TestKeys fixture, String alias, String scheme, JsonNode answer)
      throws Exception {
    String what = alias + " " + scheme + ": " + answer;
    assertTrue(answer.get("verifies").asBoolean(), "cryptography verifies " + what);
    assertFalse(answer.get("changedVerifies").asBoolean(), "not over a changed message: " + what);
    Signature verifier =
        switch (scheme) {
          case "ECDSA" -> Signature.getInstance("SHA256withECDSA", BC);
          case "RSA_PKCS1_V1_5" -> Signature.getInstance("SHA256withRSA", BC);
          case "ED25519" -> Signature.getInstance("Ed25519", BC);
          case "RSA_PSS" -> {
            Signature pss = Signature.getInstance("RSASSA-PSS", BC);
            pss.setParameter(
                new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
            yield pss;
          }
          default -> throw new AssertionError("no verifier for " + what);
        };
    verifier.initVerify(fixture.pki.certificate(alias).getPublicKey());
    verifier.update(MESSAGE);
    assertTrue(
        verifier.verify(Base64.getDecoder().decode(answer.get("signature").asText())),
        "BouncyCastle verifies what the Python client received: " + what);
  }

  /** Runs grpc_client.py against the node at {@code port}; its one line of JSON. */
  JsonNode runClient(Path pkiDir, int port) throws Exception {
    Path script = Path.of(getClass().getResource("grpc_client.py").toURI());
    Path out = dir.resolve("client.out");
    Path err = dir.resolve("client.err");
    Process client =
        new ProcessBuilder(
                VENV_PYTHON.toString(),
                script.toString(),
                Path.of("src/main/proto").toAbsolutePath().toString(),
                pkiDir.toString(),
                Integer.toString(port),
                dir.resolve("stubs").toString())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!client.waitFor(6, TimeUnit.MINUTES)) {
      client.destroyForcibly().waitFor();
      fail("the Python client did not finish within 6 minutes:\n" + Files.readString(err));
    }
    assertEquals(
        0,
        client.exitValue(),
        "the Python client failed:\n" + Files.readString(err) + Files.readString(out));
    return new ObjectMapper().readTree(Files.readString(out));
  }

  /** Fails, saying how to install it, when the venv lacks grpcio, grpcio-tools or cryptography. */
  static void requireVenv() throws Exception {
    if (!Files.isExecutable(VENV_PYTHON))
      fail(
          "the key server's Python client needs " + VENV_PYTHON + ", which is missing; " + INSTALL);
    Process check =
        new ProcessBuilder(
                VENV_PYTHON.toString(), "-c", "import grpc, grpc_tools.protoc, cryptography")
            .redirectErrorStream(true)
            .start();
    String said = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(check.waitFor(60, TimeUnit.SECONDS), "python -c 'import grpc…' did not finish");
    if (check.exitValue() != 0)
      fail(
          VENV_PYTHON
              + " lacks a package the key server's Python client needs ("
              + said.strip()
              + "); "
              + INSTALL);
  }
}
