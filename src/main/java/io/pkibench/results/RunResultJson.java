package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.pkibench.files.OutputFiles;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.text.JsonErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Writes {@code pkibench.run/3} result files; reads those and {@code pkibench.run/1} and {@code /2}
 * ones.
 */
public final class RunResultJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          // A newer minor version may add fields; an older reader keeps what it knows.
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .setSerializationInclusion(JsonInclude.Include.ALWAYS);

  private RunResultJson() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static String toJson(RunResult result) {
    try {
      return MAPPER.writeValueAsString(result) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("result cannot be written as JSON", e);
    }
  }

  /**
   * Writes to an owner-only temporary file beside {@code file}, syncs it, and renames it over
   * {@code file}: readers never see half a file, and a link at {@code file} is replaced rather than
   * followed; a device or pipe is written through ({@link OutputFiles#replace}).
   */
  public static void write(RunResult result, Path file) throws IOException {
    try {
      OutputFiles.replace(file, toJson(result));
    } catch (IOException e) {
      // "No space left on device" alone does not say which file; the one on disk is still the last
      // whole save.
      throw new IOException(
          "cannot save the result to "
              + file
              + " ("
              + e.getMessage()
              + "); "
              + (Files.exists(file) ? "the file keeps what was saved before" : "nothing was saved"),
          e);
    }
  }

  public static RunResult read(Path file) throws IOException {
    JsonNode tree;
    try {
      tree = MAPPER.readTree(file.toFile());
    } catch (JsonProcessingException e) {
      throw new IOException(
          file
              + " is not valid JSON ("
              + JsonErrors.inWords(e)
              + "); give a file written by 'pkibench run --out'",
          e);
    }
    String schema = tree == null || !tree.has("schema") ? null : tree.get("schema").asText();
    if (schema == null || !RunResult.READS.contains(schema)) {
      throw new IOException(
          file
              + " is not a pkibench result (schema "
              + schema
              + "); this version reads "
              + String.join(", ", RunResult.READS.subList(0, RunResult.READS.size() - 1))
              + " and "
              + RunResult.READS.getLast());
    }
    List<String> problems = structuralProblems(tree);
    if (!problems.isEmpty()) {
      throw damaged(
          file,
          ": "
              + String.join(", ", problems.subList(0, Math.min(5, problems.size())))
              + (problems.size() > 5 ? " and " + (problems.size() - 5) + " more" : ""),
          null);
    }
    try {
      RunResult result = MAPPER.treeToValue(tree, RunResult.class);
      String corrupt = corruptHistogram(result);
      if (corrupt != null) throw damaged(file, ": " + corrupt, null);
      return result;
    } catch (JsonProcessingException e) {
      String where =
          e instanceof JsonMappingException m && !m.getPath().isEmpty()
              ? " at "
                  + m.getPath().stream()
                      .map(
                          r ->
                              r.getFieldName() != null
                                  ? r.getFieldName()
                                  : "[" + r.getIndex() + "]")
                      .collect(Collectors.joining("."))
                      .replace(".[", "[")
              : "";
      throw damaged(file, where + ": a value has the wrong type", e);
    }
  }

  /** "FILE is damaged{what}", with the way out, for every way a result can be. */
  private static IOException damaged(Path file, String what, Exception cause) {
    return new IOException(
        file + " is damaged" + what + "; rerun, or restore the file 'pkibench run --out' wrote",
        cause);
  }

  /**
   * The first histogram that does not decode, by JSON path, and why, or null: found here rather
   * than by whichever report reads it first. One histogram is decoded at a time, each after its
   * header's range is checked.
   */
  static String corruptHistogram(RunResult result) {
    for (int w = 0; w < result.workloads().size(); w++) {
      var levels = result.workloads().get(w).levels();
      for (int l = 0; l < levels.size(); l++) {
        var iterations = levels.get(l).iterations();
        for (int i = 0; iterations != null && i < iterations.size(); i++) {
          var it = iterations.get(i);
          String at = "workloads[" + w + "].levels[" + l + "].iterations[" + i + "].";
          String why = undecodable(it.histogram());
          if (why != null) return at + "histogram" + why;
          why = it.uncorrectedHistogram() == null ? null : undecodable(it.uncorrectedHistogram());
          if (why != null) return at + "uncorrectedHistogram" + why;
        }
        Timeline timeline = levels.get(l).timeline();
        for (int k = 0; timeline != null && k < timeline.perStage().size(); k++) {
          String why = undecodable(timeline.perStage().get(k).histogram());
          if (why != null)
            return "workloads["
                + w
                + "].levels["
                + l
                + "].timeline.perStage["
                + k
                + "].histogram"
                + why;
        }
      }
    }
    return null;
  }

  /**
   * Null when {@code base64} decodes as a latency histogram; else why not, as the rest of a
   * sentence naming it.
   */
  private static String undecodable(String base64) {
    if (base64 == null) return " is not a latency histogram";
    try {
      LatencyHistograms.fromBase64(base64);
      return null;
    } catch (LatencyHistograms.RangeRefused e) {
      return " " + e.getMessage();
    } catch (IllegalArgumentException e) {
      return " is not a latency histogram";
    }
  }

  /**
   * What makes a file damaged rather than old, by JSON path: parts every reader relies on that are
   * absent or null, and levels no report can show side by side (open- and closed-loop in one
   * workload).
   */
  static List<String> structuralProblems(JsonNode tree) {
    List<String> problems = new ArrayList<>();
    for (String field : List.of("environment", "status"))
      if (!present(tree.get(field))) problems.add(field + " is missing");
    JsonNode workloads = tree.get("workloads");
    if (workloads == null || !workloads.isArray()) {
      problems.add("workloads is missing");
      return problems;
    }
    for (int w = 0; w < workloads.size(); w++) {
      JsonNode workload = workloads.get(w);
      if (!present(workload.get("name"))) problems.add("workloads[" + w + "].name is missing");
      JsonNode levels = workload.get("levels");
      if (levels == null || !levels.isArray()) {
        problems.add("workloads[" + w + "].levels is missing");
        continue;
      }
      long openLevels = 0;
      for (JsonNode level : levels) if (present(level.get("openLoop"))) openLevels++;
      if (openLevels > 0 && openLevels < levels.size())
        problems.add("workloads[" + w + "].levels mix open- and closed-loop levels");
      for (int l = 0; l < levels.size(); l++) {
        String at = "workloads[" + w + "].levels[" + l + "].";
        JsonNode level = levels.get(l);
        for (String field : List.of("counts", "throughput", "latencyNanos", "cpu")) {
          if (!present(level.get(field))) problems.add(at + field + " is missing");
        }
        JsonNode openLoop = level.get("openLoop");
        if (present(openLoop) && !present(openLoop.get("uncorrectedLatencyNanos")))
          problems.add(at + "openLoop.uncorrectedLatencyNanos is missing");
      }
    }
    return problems;
  }

  private static boolean present(JsonNode node) {
    return node != null && !node.isNull();
  }
}
