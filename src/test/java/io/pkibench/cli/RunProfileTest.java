package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.CpuProfile;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --profile}: JFR on the client and on a {@code --cpu pid:N} JVM, read into the report's
 * "where the CPU went".
 */
class RunProfileTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  private static boolean crypto(String frame) {
    return frame.startsWith("sun.security.")
        || frame.startsWith("java.math.BigInteger")
        || frame.startsWith("com.sun.crypto.")
        || frame.startsWith("org.bouncycastle.");
  }

  /**
   * The frame names of an async-profiler flame graph page, read as its own script reads them: the
   * page's cpool holds each name as the length of the prefix it shares with the one before (a
   * character, offset by 32) and the rest.
   */
  static List<String> flameFrames(String page) {
    int start = page.indexOf("const cpool = [");
    assertTrue(start >= 0, "an async-profiler flame graph page");
    List<String> names = new ArrayList<>();
    String previous = "";
    for (String line : page.substring(start, page.indexOf("];", start)).lines().skip(1).toList()) {
      if (!line.startsWith("'")) continue;
      String entry = line.substring(1, line.lastIndexOf('\''));
      String name =
          names.isEmpty()
              ? entry
              : previous.substring(0, entry.charAt(0) - 32) + entry.substring(1);
      names.add(name.replace('/', '.'));
      previous = name;
    }
    return names;
  }

  @Test
  @Timeout(180)
  void run_signWithProfile_reportNamesACryptoFrameForTheClientAndThePidRecordedByJcmd()
      throws Exception {
    long self =
        ProcessHandle.current()
            .pid(); // a JVM jcmd can reach: this one, recorded a second time through jcmd
    int code =
        run(
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
            "1x3s",
            "--cpu",
            "pid:" + self,
            "--profile",
            "--quiet",
            "--out",
            "r.json",
            "--html",
            "r.html");
    assertEquals(0, code, err.toString());
    CpuProfile profile = CpuProfile.readBeside(dir.resolve("r.json"));
    assertNotNull(profile, "r.profile.json beside the result");
    assertEquals(
        List.of("client (this JVM)", "service pid " + self),
        profile.recordings().stream().map(CpuProfile.Recording::side).toList());
    for (CpuProfile.Recording r : profile.recordings())
      assertTrue(Files.size(dir.resolve(r.jfr())) > 0, r + " kept beside the result");
    assertEquals(1, profile.workloads().size(), profile.workloads().toString());
    CpuProfile.Workload sign = profile.workloads().get(0);
    assertEquals("sign", sign.workload());
    assertEquals(2, sign.sides().size());
    for (CpuProfile.Side side : sign.sides()) {
      assertTrue(side.samples() > 0 && !side.topFrames().isEmpty(), side.toString());
      assertTrue(
          side.topFrames().stream().anyMatch(f -> crypto(f.frame())),
          "a crypto frame among the top: " + side.topFrames());
    }
    String html = Files.readString(dir.resolve("r.html"));
    String topCrypto =
        sign.sides().get(0).topFrames().stream()
            .filter(f -> crypto(f.frame()))
            .findFirst()
            .orElseThrow()
            .frame();
    assertTrue(
        html.contains("Where the CPU went") && html.contains(topCrypto),
        "the report's section names " + topCrypto);
    // a flame graph per side, drawn by async-profiler's converter from the measured span, the top
    // crypto frame in it
    for (CpuProfile.Side side : sign.sides()) {
      assertNotNull(side.flameGraph(), side.side() + ": no flame graph; " + out);
      List<String> frames = flameFrames(Files.readString(dir.resolve(side.flameGraph())));
      String top =
          side.topFrames().stream()
              .filter(f -> crypto(f.frame()))
              .findFirst()
              .orElseThrow()
              .frame();
      assertTrue(
          frames.contains(top),
          side.side()
              + ": "
              + top
              + " among the "
              + frames.size()
              + " frames of "
              + side.flameGraph());
      assertTrue(
          html.contains("<iframe src=\"" + side.flameGraph() + "\""),
          "the report shows " + side.flameGraph());
    }
    assertTrue(html.contains("flame graphs drawn by async-profiler"), "says what drew them");
    assertTrue(out.toString().contains("where the CPU went"), out.toString());

    // The report made again from the files reads the profile beside the result.
    assertEquals(0, run("report", "r.json", "--html", "again.html"), err.toString());
    assertTrue(Files.readString(dir.resolve("again.html")).contains(topCrypto));
  }

  @Test
  @Timeout(60)
  void run_profileOfAPidThatIsNoJvm_refusedNamingTheFlagBeforeAnythingRuns() throws Exception {
    Process sleeper = new ProcessBuilder("sleep", "60").start();
    try {
      int code =
          run("run", "noop", "--cpu", "pid:" + sleeper.pid(), "--profile", "--out", "r.json");
      assertEquals(2, code, err.toString());
      assertTrue(
          err.toString()
              .contains(
                  "--profile with --cpu pid:"
                      + sleeper.pid()
                      + ": pid "
                      + sleeper.pid()
                      + " is not a JVM this user can attach to"),
          err.toString());
      assertFalse(Files.exists(dir.resolve("r.json")), "nothing run");
    } finally {
      sleeper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
