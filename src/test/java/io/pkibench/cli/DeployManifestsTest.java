package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * deploy/k8s, checked without a cluster: the manifests parse and are wired (the kustomization lists
 * them, both Jobs read the one plan, the Indexed Job runs as many pods as the plan has agents), and
 * the pods' own scripts, run by sh with JOB_COMPLETION_INDEX 0..N-1 and a recording {@code
 * pkibench} on the PATH, give every pod its own segment, the same plan and the same start time,
 * each argument list one 'pkibench run' accepts, and the merge every segment's file.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeployManifestsTest {
  static final Path K8S = Path.of("deploy/k8s");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  @TempDir Path dir;

  static JsonNode yaml(String file) throws Exception {
    return YAML.readTree(K8S.resolve(file).toFile());
  }

  static Properties plan() throws Exception {
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(K8S.resolve("plan.env"))) {
      p.load(in);
    }
    return p;
  }

  static String script(JsonNode job) {
    return job.at("/spec/template/spec/containers/0/args/0").asText();
  }

  @Test
  void kustomization_listsEveryManifestAndOnePlanForBothJobs() throws Exception {
    JsonNode k = yaml("kustomization.yaml");
    for (JsonNode r : k.get("resources"))
      assertTrue(Files.exists(K8S.resolve(r.asText())), r.asText());
    String planName = k.at("/configMapGenerator/0/name").asText();
    assertEquals("plan.env", k.at("/configMapGenerator/0/envs/0").asText());
    assertTrue(
        k.at("/generatorOptions/disableNameSuffixHash").asBoolean(),
        "the Jobs name the plan's ConfigMap as is");
    for (String file : List.of("agents-job.yaml", "merge-job.yaml")) {
      JsonNode job = yaml(file);
      assertEquals("Job", job.get("kind").asText());
      assertEquals(
          planName,
          job.at("/spec/template/spec/containers/0/envFrom/0/configMapRef/name").asText(),
          file);
      assertEquals(
          yaml("results-pvc.yaml").at("/metadata/name").asText(),
          job.at("/spec/template/spec/volumes/0/persistentVolumeClaim/claimName").asText(),
          file + " writes to the shared volume");
    }
  }

  @Test
  void agentsJob_indexedWithAsManyPodsAsAgents() throws Exception {
    JsonNode job = yaml("agents-job.yaml");
    int agents = Integer.parseInt(plan().getProperty("AGENTS"));
    assertEquals("Indexed", job.at("/spec/completionMode").asText());
    assertEquals(agents, job.at("/spec/completions").asInt(), "completions = AGENTS");
    assertEquals(
        agents, job.at("/spec/parallelism").asInt(), "parallelism = AGENTS: every agent at once");
    assertEquals(
        0, job.at("/spec/backoffLimit").asInt(), "an agent run again would miss the timetable");
  }

  /**
   * Every pod of both Jobs runs without privilege (a measuring process needs none): no
   * service-account token, not root, the runtime's seccomp profile, no escalation, no capability, a
   * read-only root with /tmp an emptyDir, and requests equal to limits so an agent's CPU is its own
   * (the Guaranteed class).
   */
  @Test
  void everyPod_runsWithoutPrivilegeAndWithItsResourcesStated() throws Exception {
    for (String file : List.of("agents-job.yaml", "merge-job.yaml")) {
      JsonNode pod = yaml(file).at("/spec/template/spec");
      assertEquals(
          false,
          pod.path("automountServiceAccountToken").asBoolean(true),
          file + ": no service-account token");
      JsonNode podContext = pod.path("securityContext");
      assertTrue(podContext.path("runAsNonRoot").asBoolean(false), file + ": runAsNonRoot");
      assertTrue(
          podContext.path("runAsUser").asInt(0) > 0, file + ": a numbered user other than root");
      assertEquals(
          "RuntimeDefault", podContext.at("/seccompProfile/type").asText(), file + ": seccomp");
      Map<String, JsonNode> volumes = new HashMap<>();
      for (JsonNode v : pod.path("volumes")) volumes.put(v.path("name").asText(), v);
      assertTrue(pod.path("containers").size() > 0, file);
      for (JsonNode container : pod.path("containers")) {
        String where = file + " container " + container.path("name").asText();
        JsonNode context = container.path("securityContext");
        assertEquals(
            false,
            context.path("allowPrivilegeEscalation").asBoolean(true),
            where + ": allowPrivilegeEscalation");
        assertTrue(
            context.path("readOnlyRootFilesystem").asBoolean(false),
            where + ": readOnlyRootFilesystem");
        List<String> dropped = new ArrayList<>();
        context.at("/capabilities/drop").forEach(c -> dropped.add(c.asText()));
        assertEquals(List.of("ALL"), dropped, where + ": capabilities dropped");
        assertTrue(
            context.at("/capabilities/add").isMissingNode(), where + ": no capability added");
        for (String resource : List.of("cpu", "memory")) {
          JsonNode request = container.at("/resources/requests/" + resource);
          assertTrue(
              !request.isMissingNode() && !request.asText().isEmpty(),
              where + ": requests." + resource);
          assertEquals(
              request.asText(),
              container.at("/resources/limits/" + resource).asText(),
              where + ": limits." + resource + " = requests");
        }
        JsonNode tmp = null;
        for (JsonNode m : container.path("volumeMounts"))
          if (m.path("mountPath").asText().equals("/tmp")) tmp = m;
        assertTrue(tmp != null, where + ": /tmp mounted (the root is read-only)");
        JsonNode volume = volumes.get(tmp.path("name").asText());
        assertTrue(volume != null && volume.has("emptyDir"), where + ": /tmp is an emptyDir");
      }
    }
  }

  /**
   * The manifests name the image by the version it was built as, never :latest; the Containerfile's
   * build line tags that version.
   */
  @Test
  void image_namedByTheProjectsVersionNotLatest() throws Exception {
    JsonNode image = yaml("kustomization.yaml").at("/images/0");
    String tag = image.path("newTag").asText();
    String digest = image.path("digest").asText();
    assertTrue(
        !digest.isEmpty() || (!tag.isEmpty() && !tag.equals("latest")),
        "an image named by a version or a digest, not '" + tag + "'");
    String pom = Files.readString(Path.of("pom.xml"));
    java.util.regex.Matcher version =
        java.util.regex.Pattern.compile(
                "<artifactId>pkibench</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
    assertTrue(version.find(), "pom.xml's version");
    assertEquals(version.group(1), tag, "the kustomization's tag is the project's version");
    String containerfile = Files.readString(Path.of("deploy/Containerfile"));
    assertTrue(
        containerfile.contains("-t pkibench:" + tag + " "),
        "deploy/Containerfile's build line tags pkibench:" + tag);
    assertTrue(
        containerfile.contains("FROM ${BASE_IMAGE}") && containerfile.contains("ARG BASE_IMAGE="),
        "the base image is an argument, so a build can pin it by digest");
    for (String file : List.of("agents-job.yaml", "merge-job.yaml")) {
      assertEquals(
          image.path("name").asText(),
          yaml(file).at("/spec/template/spec/containers/0/image").asText(),
          file + " uses the image the kustomization names");
    }
  }

  /**
   * Each pod's script as the pod runs it: index K gives --segment K+1/N, every pod the same plan
   * and start time.
   */
  @Test
  void agentScripts_indexToSegment_samePlanAndStartForEveryPod() throws Exception {
    Properties plan = plan();
    int agents = Integer.parseInt(plan.getProperty("AGENTS"));
    Path results = Files.createDirectories(dir.resolve("results"));
    String script = script(yaml("agents-job.yaml")).replace("/results", results.toString());
    Set<String> segments = new TreeSet<>();
    Set<String> starts = new TreeSet<>();
    Set<String> plans = new TreeSet<>();
    for (int index = 0; index < agents; index++) {
      List<String> args =
          runScript(script, plan, Map.of("JOB_COMPLETION_INDEX", Integer.toString(index)));
      assertEquals("run", args.get(0), args.toString());
      RunCommand run = new RunCommand();
      new CommandLine(run)
          .parseArgs(
              args.subList(1, args.size())
                  .toArray(String[]::new)); // throws on a flag 'run' does not take
      segments.add(run.agents.segment);
      starts.add(run.agents.startAt);
      assertEquals(results.resolve("seg-" + (index + 1) + ".json"), run.out);
      plans.add(String.join(" ", args.subList(1, args.indexOf("--segment"))));
      assertTrue(
          Files.exists(results.resolve("seg-" + (index + 1) + ".done")),
          "the agent marks its end for the merge");
    }
    List<String> expected = new ArrayList<>();
    for (int k = 1; k <= agents; k++) expected.add(k + "/" + agents);
    assertEquals(new TreeSet<>(expected), segments, "each segment once");
    assertEquals(1, starts.size(), "one start time, computed once: " + starts);
    assertEquals(Set.of(plan.getProperty("RUN_ARGS")), plans, "every pod the same plan");
    java.time.Instant.parse(starts.iterator().next());
  }

  /**
   * The same Job running a study's agents: 'study restpki' with the plan's flags, each pod its
   * segment, one start, one plan.
   */
  @Test
  void agentScripts_studyCommand_eachPodAnAgentOfTheStudy() throws Exception {
    Properties plan = plan();
    plan.setProperty("AGENT_COMMAND", "study restpki");
    plan.setProperty("RUN_ARGS", "--target https://signer:8443 --concurrency 64 --duration 5m");
    int agents = Integer.parseInt(plan.getProperty("AGENTS"));
    Path results = Files.createDirectories(dir.resolve("results"));
    String script = script(yaml("agents-job.yaml")).replace("/results", results.toString());
    Set<String> segments = new TreeSet<>();
    Set<String> starts = new TreeSet<>();
    for (int index = 0; index < agents; index++) {
      List<String> args =
          runScript(script, plan, Map.of("JOB_COMPLETION_INDEX", Integer.toString(index)));
      assertEquals(List.of("study", "restpki"), args.subList(0, 2), args.toString());
      StudyRestPki study = new StudyRestPki();
      new CommandLine(study)
          .parseArgs(
              args.subList(2, args.size())
                  .toArray(String[]::new)); // throws on a flag 'study restpki' does not take
      segments.add(study.shared.segment);
      starts.add(study.shared.startAt);
      assertEquals(64, study.shared.concurrency);
      assertEquals("https://signer:8443", study.target);
      assertEquals(results.resolve("seg-" + (index + 1) + ".json"), study.shared.out);
    }
    assertEquals(agents, segments.size(), "each pod its own segment: " + segments);
    assertEquals(1, starts.size(), "one start time: " + starts);
  }

  @Test
  void mergeScript_readsEverySegmentsFile() throws Exception {
    Properties plan = plan();
    int agents = Integer.parseInt(plan.getProperty("AGENTS"));
    Path results = Files.createDirectories(dir.resolve("results"));
    for (int k = 1; k <= agents; k++) Files.writeString(results.resolve("seg-" + k + ".done"), "");
    List<String> args =
        runScript(
            script(yaml("merge-job.yaml")).replace("/results", results.toString()), plan, Map.of());
    assertEquals("merge", args.get(0));
    MergeCommand merge = new MergeCommand();
    new CommandLine(merge).parseArgs(args.subList(1, args.size()).toArray(String[]::new));
    List<Path> expected = new ArrayList<>();
    for (int k = 1; k <= agents; k++) expected.add(results.resolve("seg-" + k + ".json"));
    assertEquals(expected, merge.files);
    assertEquals(results.resolve("all.json"), merge.out);
  }

  /**
   * Runs {@code script} with sh, the plan's variables and {@code env}, a {@code pkibench} on the
   * PATH that records its arguments.
   */
  List<String> runScript(String script, Properties plan, Map<String, String> env) throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path argsFile = dir.resolve("args");
    Files.deleteIfExists(argsFile);
    Path pkibench = bin.resolve("pkibench");
    Files.writeString(
        pkibench,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + argsFile + "\n");
    pkibench.toFile().setExecutable(true);
    ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", script).redirectErrorStream(true);
    Map<String, String> environment = new HashMap<>();
    for (String name : plan.stringPropertyNames()) environment.put(name, plan.getProperty(name));
    environment.putAll(env);
    environment.put("PATH", bin + ":/usr/bin:/bin");
    pb.environment().putAll(environment);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), output);
    return Files.readAllLines(argsFile);
  }
}
