package io.pkibench.server.pec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the spool sets aside, as files in {@code failed/} for a person to look at: a job as {@code
 * ID.job} (a tab-separated header line, then the message), a result as {@code ID-N.out}, each with
 * the reason beside it in {@code .why}.
 */
final class SetAsideFiles {
  private static final String JOB_MAGIC = "pkibench.pec-job/1";

  private final Path failed;

  SetAsideFiles(Path failed) {
    this.failed = failed;
  }

  /** {@code job} (null when it is no longer held) and why it was set aside. */
  void job(String id, PecSpool.Job job, String reason) throws IOException {
    if (job != null) {
      write(
          failed.resolve(id + ".job"),
          String.join(
              "\t",
              JOB_MAGIC,
              job.origin().spoolName(),
              job.mailFrom(),
              String.join(",", job.rcpts())),
          job.bytes());
    }
    Files.writeString(failed.resolve(id + ".why"), reason + "\n");
  }

  /** The result {@code ref} ({@code JOBID/N}) and why no one takes it. */
  void item(String ref, PecSpool.Item item, String reason) throws IOException {
    String name = ref.replace('/', '-') + ".out";
    write(
        failed.resolve(name),
        String.join(
            "\t",
            item.route().spoolName(),
            item.kind(),
            item.envelopeFrom(),
            String.join(",", item.to()),
            item.messageId()),
        item.bytes());
    Files.writeString(failed.resolve(name + ".why"), reason + "\n");
  }

  private static void write(Path file, String header, byte[] body) throws IOException {
    byte[] head = (header + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[head.length + body.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(body, 0, all, head.length, body.length);
    Files.write(file, all);
  }
}
