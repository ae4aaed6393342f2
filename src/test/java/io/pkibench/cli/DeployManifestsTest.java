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
 * deploy/k8s, checked without a cluster: the manifests parse and are wired (the kustomization lists them, both Jobs read
 * the one plan, the Indexed Job runs as many pods as the plan has agents), and the pods' own scripts, run by sh with
 * JOB_COMPLETION_INDEX 0..N-1 and a recording {@code pkibench} on the PATH, give every pod its own segment, the same plan
 * and the same start time, each argument list one 'pkibench run' accepts, and the merge every segment's file.
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
    for (JsonNode r : k.get("resources")) assertTrue(Files.exists(K8S.resolve(r.asText())), r.asText());
    String planName = k.at("/configMapGenerator/0/name").asText();
    assertEquals("plan.env", k.at("/configMapGenerator/0/envs/0").asText());
    assertTrue(k.at("/generatorOptions/disableNameSuffixHash").asBoolean(), "the Jobs name the plan's ConfigMap as is");
    for (String file : List.of("agents-job.yaml", "merge-job.yaml")) {
      JsonNode job = yaml(file);
      assertEquals("Job", job.get("kind").asText());
      assertEquals(planName, job.at("/spec/template/spec/containers/0/envFrom/0/configMapRef/name").asText(), file);
      assertEquals(yaml("results-pvc.yaml").at("/metadata/name").asText(),
          job.at("/spec/template/spec/volumes/0/persistentVolumeClaim/claimName").asText(), file + " writes to the shared volume");
    }
  }

  @Test
  void agentsJob_indexedWithAsManyPodsAsAgents() throws Exception {
    JsonNode job = yaml("agents-job.yaml");
    int agents = Integer.parseInt(plan().getProperty("AGENTS"));
    assertEquals("Indexed", job.at("/spec/completionMode").asText());
    assertEquals(agents, job.at("/spec/completions").asInt(), "completions = AGENTS");
    assertEquals(agents, job.at("/spec/parallelism").asInt(), "parallelism = AGENTS: every agent at once");
    assertEquals(0, job.at("/spec/backoffLimit").asInt(), "an agent run again would miss the timetable");
  }

  /** Each pod's script as the pod runs it: index K gives --segment K+1/N, every pod the same plan and start time. */
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
      List<String> args = runScript(script, plan, Map.of("JOB_COMPLETION_INDEX", Integer.toString(index)));
      assertEquals("run", args.get(0), args.toString());
      RunCommand run = new RunCommand();
      new CommandLine(run).parseArgs(args.subList(1, args.size()).toArray(String[]::new)); // throws on a flag 'run' does not take
      segments.add(run.agents.segment);
      starts.add(run.agents.startAt);
      assertEquals(results.resolve("seg-" + (index + 1) + ".json"), run.out);
      plans.add(String.join(" ", args.subList(1, args.indexOf("--segment"))));
      assertTrue(Files.exists(results.resolve("seg-" + (index + 1) + ".done")), "the agent marks its end for the merge");
    }
    List<String> expected = new ArrayList<>();
    for (int k = 1; k <= agents; k++) expected.add(k + "/" + agents);
    assertEquals(new TreeSet<>(expected), segments, "each segment once");
    assertEquals(1, starts.size(), "one start time, computed once: " + starts);
    assertEquals(Set.of(plan.getProperty("RUN_ARGS")), plans, "every pod the same plan");
    java.time.Instant.parse(starts.iterator().next());
  }

  /** The same Job running a study's agents: 'study restpki' with the plan's flags, each pod its segment, one start, one plan. */
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
      List<String> args = runScript(script, plan, Map.of("JOB_COMPLETION_INDEX", Integer.toString(index)));
      assertEquals(List.of("study", "restpki"), args.subList(0, 2), args.toString());
      StudyCommand.RestPki study = new StudyCommand.RestPki();
      new CommandLine(study).parseArgs(args.subList(2, args.size()).toArray(String[]::new)); // throws on a flag 'study restpki' does not take
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
    List<String> args = runScript(script(yaml("merge-job.yaml")).replace("/results", results.toString()), plan, Map.of());
    assertEquals("merge", args.get(0));
    MergeCommand merge = new MergeCommand();
    new CommandLine(merge).parseArgs(args.subList(1, args.size()).toArray(String[]::new));
    List<Path> expected = new ArrayList<>();
    for (int k = 1; k <= agents; k++) expected.add(results.resolve("seg-" + k + ".json"));
    assertEquals(expected, merge.files);
    assertEquals(results.resolve("all.json"), merge.out);
  }

  /** Runs {@code script} with sh, the plan's variables and {@code env}, a {@code pkibench} on the PATH that records its arguments. */
  List<String> runScript(String script, Properties plan, Map<String, String> env) throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path argsFile = dir.resolve("args");
    Files.deleteIfExists(argsFile);
    Path pkibench = bin.resolve("pkibench");
    Files.writeString(pkibench, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + argsFile + "\n");
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
