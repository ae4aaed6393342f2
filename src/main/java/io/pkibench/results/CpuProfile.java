package io.pkibench.results;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.pkibench.files.OutputFiles;
import io.pkibench.text.JsonErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where the CPU went in a run made with {@code --profile}: kept beside the result as {@code
 * RESULT.profile.json} (as the interval histograms are kept in {@code RESULT.hlog}), with the
 * {@code .jfr} recordings it was read from. {@code renderer}: what drew the flame graphs (null:
 * none was found, and {@code rendererNote} says so); per workload, each side's samples in the
 * measured iterations and the frames with the most self time. File names are relative to the
 * result's directory.
 */
public record CpuProfile(
    String format,
    String renderer,
    String rendererNote,
    List<Recording> recordings,
    List<Workload> workloads) {
  public static final String FORMAT = "pkibench.profile/1";

  public CpuProfile {
    recordings = List.copyOf(recordings);
    workloads = List.copyOf(workloads);
  }

  /**
   * One JVM's recording: its side ("client (this JVM)", "service pid 4242") and its {@code .jfr}
   * file; {@code problem} when none could be taken.
   */
  public record Recording(String side, String jfr, String problem) {}

  /**
   * A workload (a study's step) as the run tagged it, the span of its measured iterations, and each
   * side's account of it.
   */
  public record Workload(String workload, Instant from, Instant to, List<Side> sides) {
    public Workload {
      sides = List.copyOf(sides);
    }
  }

  /**
   * One side of one workload: samples, the top frames by self time, and its flame graph's file
   * (null when not drawn).
   */
  public record Side(String side, long samples, List<Frame> topFrames, String flameGraph) {
    public Side {
      topFrames = List.copyOf(topFrames);
    }
  }

  public record Frame(String frame, long samples) {}

  private static final Pattern PLAIN_FILE_NAME =
      Pattern.compile("[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,254}");

  /**
   * Whether {@code name} is a plain file name beside the result, as pkibench writes them (the
   * result's stem, the side, a number): letters, digits and {@code . _ + -}, not starting with a
   * dot, no {@code ..}. Nothing else in a profile (which anyone may have edited) may become a link
   * or a frame of a report: not {@code javascript:}, not a URL, not a path out of the directory.
   */
  public static boolean isPlainFileName(String name) {
    return name != null && PLAIN_FILE_NAME.matcher(name).matches() && !name.contains("..");
  }

  /** {@code run.json} → {@code run.profile.json}, beside it. */
  public static Path fileFor(Path resultFile) {
    return resultFile.resolveSibling(stem(resultFile) + ".profile.json");
  }

  /**
   * The result file's name without {@code .json}: the prefix of every file the profile keeps beside
   * it.
   */
  public static String stem(Path resultFile) {
    String name = resultFile.getFileName().toString();
    return name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
  }

  /**
   * Written whole, owner-only, a link at its path replaced rather than followed ({@link
   * OutputFiles#replace}).
   */
  public static void write(CpuProfile profile, Path file) throws IOException {
    OutputFiles.replace(file, RunResultJson.mapper().writeValueAsString(profile) + "\n");
  }

  /** The profile kept beside {@code resultFile}, or null when the run was not profiled. */
  public static CpuProfile readBeside(Path resultFile) throws IOException {
    Path file = fileFor(resultFile);
    if (!Files.isRegularFile(file)) return null;
    CpuProfile p;
    try {
      p = RunResultJson.mapper().readValue(file.toFile(), CpuProfile.class);
    } catch (JsonProcessingException e) {
      throw new IOException(file + " is not a readable profile (" + JsonErrors.inWords(e) + ")", e);
    }
    if (!FORMAT.equals(p.format()))
      throw new IOException(
          file
              + " is "
              + p.format()
              + ", not "
              + FORMAT
              + "; this version of pkibench cannot read it");
    return p;
  }
}
