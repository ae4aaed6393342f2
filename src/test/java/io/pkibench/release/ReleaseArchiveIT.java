package io.pkibench.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive ({@code target/pkibench-VERSION.tar.gz}, made by {@code package}) unpacked
 * into a temporary directory and run as a user would: with no Maven, no sources and no JDK tools on
 * PATH, only a {@code java} (found through PATH or JAVA_HOME) and the shell tools its launcher
 * uses. It runs after {@code package} (surefire's release-archive execution in pom.xml).
 */
class ReleaseArchiveIT {
  /** What bin/pkibench and bin/jdk-home call, besides java: nothing else is on PATH. */
  private static final List<String> SHELL_TOOLS =
      List.of("bash", "env", "sed", "dirname", "readlink", "cat");

  @TempDir static Path dir;
  static Path home;

  @BeforeAll
  static void unpack() throws Exception {
    String named = System.getProperty("pkibench.archive");
    assertTrue(named != null, "the pkibench.archive system property (set in pom.xml's surefire)");
    Path archive = Path.of(named);
    assertTrue(
        Files.isRegularFile(archive),
        archive + " is missing: './mvnw package' makes it (this test runs after package)");
    Process tar =
        new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", dir.toString())
            .redirectErrorStream(true)
            .start();
    String said = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(tar.waitFor(120, TimeUnit.SECONDS), "tar took over 2 minutes");
    assertEquals(0, tar.exitValue(), said);
    String base = archive.getFileName().toString().replace(".tar.gz", "");
    home = dir.resolve(base);
  }

  @Test
  void archive_holdsLauncherJarDocsCompletionAndManPages() {
    for (String file :
        List.of(
            "bin/pkibench",
            "bin/jdk-home",
            "lib/pkibench.jar",
            "README.md",
            "docs/install.md",
            "completion/pkibench.bash",
            "completion/pkibench.zsh",
            "man/man1/pkibench.1",
            "man/man1/pkibench-run.1",
            "man/man1/pkibench-study-restpki.1"))
      assertTrue(Files.isRegularFile(home.resolve(file)), "the archive holds " + file);
    assertTrue(Files.isExecutable(home.resolve("bin/pkibench")), "bin/pkibench is executable");
    assertFalse(Files.exists(home.resolve("pom.xml")), "no sources, nothing to build");
  }

  @Test
  void version_runsWithOnlyAJavaOnPath() throws Exception {
    Path path = toolsDir("path-java", true);
    Result result = launch(Map.of("PATH", path.toString()), "--version");
    assertEquals(0, result.code(), result.output());
    assertTrue(result.output().startsWith("pkibench "), result.output());
    assertTrue(result.output().contains("JDK "), result.output());
  }

  @Test
  void tinyRun_runsWithOnlyJavaHome_andBuildsNothing() throws Exception {
    Path path = toolsDir("path-no-java", false);
    Path work = Files.createDirectories(dir.resolve("work"));
    Result result =
        launch(
            Map.of(
                "PATH",
                path.toString(),
                "JAVA_HOME",
                System.getProperty("java.home"),
                "PKIBENCH_PKI",
                work.resolve("pki").toString(),
                "PKIBENCH_JAVA_OPTS",
                "-Xmx512m"),
            "run",
            "sign",
            "-p",
            "alg=ecdsa-p256",
            "--concurrency",
            "1",
            "--warmup",
            "1x1s",
            "--measure",
            "1x1s",
            "--out",
            work.resolve("run.json").toString());
    assertEquals(0, result.code(), result.output());
    JsonNode run = new ObjectMapper().readTree(work.resolve("run.json").toFile());
    assertEquals("complete", run.path("status").asText(), run.toString());
    long succeeded = run.at("/workloads/0/levels/0/counts/succeeded").asLong();
    assertTrue(succeeded > 0, "the level signed: " + run.at("/workloads/0/levels/0/counts"));
    try (Stream<Path> files = Files.list(home)) {
      List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
      assertEquals(
          List.of("README.md", "bin", "completion", "docs", "lib", "man"),
          names,
          "the run added nothing beside the unpacked files (no build, no target/)");
    }
  }

  @Test
  void completionCommand_printsTheScriptTheArchiveShips() throws Exception {
    Result result =
        launch(Map.of("PATH", toolsDir("path-completion", true).toString()), "completion", "bash");
    assertEquals(0, result.code(), result.output());
    assertEquals(
        Files.readString(home.resolve("completion/pkibench.bash")),
        result.output(),
        "pkibench completion bash is completion/pkibench.bash");
  }

  /**
   * A PATH of its own: links to the shell tools, and to this JDK's java when {@code withJava}.
   * Maven and javac are not on it: the archive must neither build nor need them.
   */
  private static Path toolsDir(String name, boolean withJava) throws IOException {
    Path tools = Files.createDirectories(dir.resolve(name));
    for (String tool : SHELL_TOOLS) {
      Path found = onSystemPath(tool);
      Files.createSymbolicLink(tools.resolve(tool), found);
    }
    if (withJava)
      Files.createSymbolicLink(
          tools.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
    assertFalse(Files.exists(tools.resolve("mvn")), "no mvn on the archive's PATH");
    return tools;
  }

  private static Path onSystemPath(String tool) {
    for (String entry : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      Path candidate = Path.of(entry, tool);
      if (Files.isExecutable(candidate)) return candidate;
    }
    throw new AssertionError(tool + " is not on this machine's PATH; the launcher needs it");
  }

  record Result(int code, String output) {}

  /** Runs bin/pkibench with exactly {@code env} (nothing inherited), from the temporary dir. */
  private static Result launch(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/pkibench").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.environment().clear();
    builder.environment().put("HOME", dir.toString());
    builder.environment().putAll(env);
    Path output = Files.createTempFile(dir, "out", ".txt");
    Path errors = Files.createTempFile(dir, "err", ".txt");
    Process process =
        builder.redirectOutput(output.toFile()).redirectError(errors.toFile()).start();
    if (!process.waitFor(180, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError("bin/pkibench " + String.join(" ", args) + " ran over 3 minutes");
    }
    String out = Files.readString(output);
    String err = Files.readString(errors);
    return new Result(process.exitValue(), process.exitValue() == 0 ? out : out + err);
  }
}
