package io.pkibench.workload.apispec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.files.InputFile;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pkibench run api} end to end, in process: what a run writes and prints keeps the spec's
 * secrets out; a sign step signs with a {@code --keys} alias.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ApiRunTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static final String TOKEN = "tok-91b0d4e6a2c3f587";
  static final String LITERAL_KEY = "lit-5a6b7c8d9e0f1a2b";

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("SIGN_TOKEN", TOKEN, "HOME", dir.toString()),
            InstantSource.system(),
            dir,
            false),
        args);
  }

  /** A service that checks the token and signs with a key of its own (its answers unchecked). */
  static SigningApi service(SigningApi.Behaviour behaviour) throws Exception {
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(256);
    KeyPair signer = ec.generateKeyPair();
    return new SigningApi(null, TOKEN, behaviour, signer.getPrivate(), null, null, new byte[0]);
  }

  static final String SPEC =
      """
      headers: {Authorization: "Bearer ${env.SIGN_TOKEN}", X-Api-Key: "LITERAL"}
      steps:
        - request: POST /v1/documents
          json: {content: "${document | base64}", owner: "${env.SIGN_TOKEN}"}
          expect: {status: 201}
          capture: {id: /id}
        - request: POST /v1/documents/${id}/sign?t=${env.SIGN_TOKEN}
          json: {keyId: k1}
          expect: {status: 200}
      """
          .replace("LITERAL", LITERAL_KEY);

  void assertNoSecret(String where, String text) {
    assertFalse(text.contains(TOKEN), where + " holds the token: " + text);
    assertFalse(text.contains(LITERAL_KEY), where + " holds the literal key: " + text);
  }

  @Test
  void run_specReadingEnvToken_secretReachesNeitherResultNorTerminalNorStoredSpec()
      throws Exception {
    Path spec = dir.resolve("secret.yaml");
    Files.writeString(spec, SPEC);
    for (SigningApi.Behaviour behaviour :
        List.of(SigningApi.Behaviour.HONEST, SigningApi.Behaviour.BROKEN)) {
      String result = behaviour.name().toLowerCase() + ".json";
      try (SigningApi service = service(behaviour)) {
        int exit =
            run(
                "run",
                "api",
                "--target",
                service.url(),
                "-p",
                "spec=" + spec,
                "--pki",
                "pki",
                "--concurrency",
                "1",
                "--warmup",
                "0x1s",
                "--measure",
                "1x1s",
                "--out",
                result);
        assertEquals(0, service.unauthorized.get(), "the token was sent, read from env.SIGN_TOKEN");
        if (behaviour == SigningApi.Behaviour.BROKEN) {
          // the one operation tried before the run fails, and the run stops, saying why
          assertEquals(2, exit, err.toString());
          assertTrue(
              err.toString()
                  .contains(
                      "step 2 (POST /v1/documents/${id}/sign?t=${env.SIGN_TOKEN}, line 7): expected status 200, answered 500"),
              err.toString());
          continue;
        }
        assertEquals(0, exit, err.toString());
      }
      String json = Files.readString(dir.resolve(result));
      assertNoSecret(result, json);
      WorkloadResult w = RunResultJson.read(dir.resolve(result)).workloads().get(0);
      InputFile stored = w.inputs().get(0);
      assertEquals(SPEC.replace(LITERAL_KEY, "***"), stored.text());
      assertEquals(
          HexFormat.of()
              .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(spec))),
          stored.sha256());
      if (behaviour == SigningApi.Behaviour.BROKEN)
        assertTrue(
            json.contains(
                "step 2 (POST /v1/documents/${id}/sign?t=${env.SIGN_TOKEN}, line 7): expected status 200, answered 500"),
            json);
      else assertTrue(w.levels().get(0).counts().succeeded() > 0, json);
    }
    assertNoSecret("stdout", out.toString());
    assertNoSecret("stderr", err.toString());
    try (var logs = Files.list(dir)) {
      for (Path f : logs.filter(p -> p.toString().endsWith(".hlog")).toList())
        assertNoSecret(f.toString(), Files.readString(f));
    }
  }

  /** Two-phase: the document signed here with a --keys alias; BouncyCastle checks it. */
  @Test
  void run_signStepWithKeysAlias_signatureVerifiesUnderItsCertificate() throws Exception {
    String alias = "signer-rsa2048-1";
    Path cert = dir.resolve("signer-cert.pem");
    Files.copy(fixture.pki.certificatePem(alias), cert);
    Path spec = dir.resolve("two-phase.yaml");
    Files.writeString(
        spec,
        """
        headers: {Authorization: "Bearer ${env.SIGN_TOKEN}"}
        steps:
          - request: POST /v1/documents
            json: {content: "${document | sha256 | base64}"}
            expect: {status: 201}
            capture: {id: /id}
          - sign: {input: "${document}", alg: SHA256withRSA, key: ALIAS, as: signed}
          - request: POST /v1/documents/${id}/sign
            json: {keyId: k1, signature: "${signed | base64}", chain: "${chain}"}
        verify:
          - signature: {value: "${signed}", over: "${document}", alg: SHA256withRSA, key: signer-cert.pem}
        """
            .replace("ALIAS", alias));
    ApiWorkload.Factory factory = new ApiWorkload.Factory();
    try (SigningApi service = service(SigningApi.Behaviour.HONEST)) {
      Params params =
          Params.resolve(
              "api", factory.params(), Map.of("target", service.url(), "spec", spec.toString()));
      assertEquals(List.of(), factory.problems(params, "software"));
      try (Workload w =
          factory.create(
              new WorkloadContext(
                  fixture.keys,
                  true,
                  () -> fixture.pki,
                  InstantSource.system(),
                  Map.of("SIGN_TOKEN", TOKEN)),
              params)) {
        MeasuredRun.of("api sign step", w, Duration.ofMillis(400)).assertEverySucceeded();
      }
    }
  }
}
