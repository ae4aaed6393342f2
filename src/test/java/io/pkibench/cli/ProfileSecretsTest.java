package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.CpuProfile;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.RunProfiler;
import io.pkibench.study.ServiceProcess;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --profile} keeps the environment, the system properties and the JVM's arguments out of
 * every recording it makes (JFR's "profile" settings record them all: a PIN in PKIBENCH_PKCS11_PIN,
 * a keystore password in a -D option), and writes its files owner-only, never through a link
 * planted at their paths. The secrets are planted in JVMs of their own, as a user's environment
 * would hold them.
 */
class ProfileSecretsTest {
  static final String PIN = "planted-secret-pin-5cbd1e";
  static final String PASSWORD = "planted-secret-password-7a41f0";
  static final String VICTIM_TEXT = "the victim's own content\n";
  @TempDir Path dir;

  /** This program's java command with a keystore password among its system properties. */
  static List<String> javaWithSecretProperty() {
    List<String> java = new ArrayList<>(ForkedSeries.thisJvm());
    java.add(1, "-Djavax.net.ssl.keyStorePassword=" + PASSWORD);
    return java;
  }

  static Map<String, String> envWithPin() {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", System.getenv("PATH"));
    env.put("PKIBENCH_PKCS11_PIN", PIN);
    env.put("SOME_TOKEN", PASSWORD);
    return env;
  }

  /**
   * Every file under {@code dir} (the victim's directory left out) holds neither secret, in any of
   * its bytes.
   */
  static void assertNoSecretIn(Path dir, Path skip) throws Exception {
    List<Path> files;
    try (Stream<Path> all = Files.walk(dir)) {
      files =
          all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && !p.startsWith(skip))
              .toList();
    }
    assertTrue(
        files.stream().anyMatch(p -> p.toString().endsWith(".jfr")), "a recording among " + files);
    for (Path f : files) {
      // JFR writes an ASCII string's characters one byte each whatever its encoding (UTF-8,
      // Latin-1, or chars as varints).
      String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
      for (String secret : List.of(PIN, PASSWORD))
        assertFalse(bytes.contains(secret), f.getFileName() + " holds " + secret);
    }
  }

  static void assertOwnerOnly(Path file) throws Exception {
    assertTrue(
        Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS),
        file + " is a regular file, not a link");
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)),
        file.toString());
  }

  @Test
  @Timeout(300)
  void run_profiledWithAPinInTheEnvironment_noFileBesideTheResultHoldsItAndRecordingsAreOwnerOnly()
      throws Exception {
    assertEquals(
        0,
        InThisJvm.run(dir, new StringWriter(), new StringWriter(), "pki", "init", "--dir", "pki"));
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path victim = Files.writeString(elsewhere.resolve("victim.txt"), VICTIM_TEXT);
    try (ServiceProcess service =
        ServiceProcess.start(
            javaWithSecretProperty(),
            List.of("serve", "crl", "--port", "0", "--pki", dir.resolve("pki").toString()),
            envWithPin())) {
      // Links where the run will write its recordings, its profile and a flame graph.
      for (String name :
          List.of(
              "r.client.jfr",
              "r.pid-" + service.pid() + ".jfr",
              "r.profile.json",
              "r.client.1.html")) {
        Files.createSymbolicLink(dir.resolve(name), victim);
      }
      List<String> cmd = new ArrayList<>(javaWithSecretProperty());
      cmd.addAll(
          List.of(
              "run",
              "sign",
              "-p",
              "alg=ecdsa-p256",
              "--keys",
              "software:jdk",
              "--pki",
              "pki",
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x2s",
              "--cpu",
              "pid:" + service.pid(),
              "--profile",
              "--quiet",
              "--out",
              "r.json",
              "--html",
              "r.html"));
      ProcessBuilder builder =
          new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
      builder.environment().clear();
      builder.environment().putAll(envWithPin());
      Process run = builder.start();
      String said = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(run.waitFor(240, TimeUnit.SECONDS), "the run ends");
      assertEquals(0, run.exitValue(), said);
    }
    CpuProfile profile = CpuProfile.readBeside(dir.resolve("r.json"));
    assertEquals(2, profile.recordings().size(), profile.recordings().toString());
    for (CpuProfile.Recording r : profile.recordings()) assertOwnerOnly(dir.resolve(r.jfr()));
    assertOwnerOnly(dir.resolve("r.profile.json"));
    assertOwnerOnly(dir.resolve("r.client.1.html"));
    assertEquals(VICTIM_TEXT, Files.readString(victim), "no file was written through a link");
    assertNoSecretIn(dir, elsewhere);
  }

  /**
   * A study's services record themselves from their start, through the JVM option the profiler
   * gives them.
   */
  @Test
  @Timeout(180)
  void serviceJvmOption_aServiceWithAPinInTheEnvironment_itsRecordingHoldsNoneAndIsOwnerOnly()
      throws Exception {
    assertEquals(
        0,
        InThisJvm.run(dir, new StringWriter(), new StringWriter(), "pki", "init", "--dir", "pki"));
    Path result = dir.resolve("s.json");
    List<String> log = new ArrayList<>();
    RunProfiler profiler = new RunProfiler(result, List.of(), InstantSource.system(), log::add);
    List<String> java = ProfileFlag.serviceJava(javaWithSecretProperty(), profiler);
    profiler.start();
    long pid;
    try (ServiceProcess service =
        ServiceProcess.start(
            java,
            List.of("serve", "crl", "--port", "0", "--pki", dir.resolve("pki").toString()),
            envWithPin())) {
      pid = service.pid();
    } // stopped by SIGTERM: the recording is written as the JVM exits
    CpuProfile profile = profiler.finish();
    assertEquals(
        List.of("service pid " + pid),
        profile.recordings().stream().map(CpuProfile.Recording::side).toList(),
        log.toString());
    assertOwnerOnly(dir.resolve(profile.recordings().get(0).jfr()));
    assertOwnerOnly(CpuProfile.fileFor(result));
    assertNoSecretIn(dir, dir.resolve("pki"));
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(
          List.of(),
          left.filter(p -> p.getFileName().toString().startsWith(".")).toList(),
          "no working directory or file left beside the result");
    }
  }
}
