package io.pkibench.workload.api;

import io.pkibench.files.OutputFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code -p keep-answer=DIR}: the first answer of the measured service whose check passed, kept as
 * {@code DIR/answer}, with what was sent for it as {@code DIR/sent}, so that a study's {@code
 * --save-samples} hands outsiders the service's own output rather than a copy made in pkibench's
 * process by the same code. Kept once per workload: one file write, outside every other operation.
 */
public final class KeptAnswers {
  public static final String PARAM = "keep-answer";
  public static final String ANSWER = "answer";
  public static final String SENT = "sent";

  public static final ParamSpec SPEC =
      ParamSpec.free(
          PARAM,
          "",
          "under --verify, a directory to keep the service's first answer that passed its check in ("
              + ANSWER
              + ", and what was sent for it, "
              + SENT
              + "): what a study's --save-samples hands to outside tools");

  private final Path dir;
  private final AtomicBoolean kept = new AtomicBoolean();

  private KeptAnswers(Path dir) {
    this.dir = dir;
  }

  /** Keeping into {@code dir}; nothing kept for an empty one. */
  public static KeptAnswers in(String dir) {
    return new KeptAnswers(dir.isBlank() ? null : Path.of(dir));
  }

  /** {@code answer}, checked and passed, and {@code sent}: written the first time only. */
  public void keep(byte[] answer, byte[] sent) throws IOException {
    // a plain read first: every verified operation of every worker passes here, and a
    // compare-and-set on each would bounce the flag's cache line between the workers' cores
    if (dir == null || kept.get() || !kept.compareAndSet(false, true)) return;
    Files.createDirectories(dir);
    OutputFiles.replace(dir.resolve(SENT), sent);
    OutputFiles.replace(dir.resolve(ANSWER), answer);
  }
}
