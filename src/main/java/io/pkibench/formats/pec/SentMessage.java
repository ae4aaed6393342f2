package io.pkibench.formats.pec;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.pki.InputFiles;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A message a user handed to its provider and the provider acknowledged (250): one line of {@code
 * sent.jsonl}, what the reliability check holds the mailboxes against.
 */
public record SentMessage(
    String messageId, String from, List<String> to, int bytes, String sentAt) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public SentMessage {
    to = List.copyOf(to);
  }

  /** Appends lines, each flushed when written: a crash loses no acknowledged message's line. */
  public static final class Log implements AutoCloseable {
    private final BufferedWriter out;

    public Log(Path file) throws IOException {
      out =
          Files.newBufferedWriter(
              file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    public synchronized void add(SentMessage m) throws IOException {
      out.write(JSON.writeValueAsString(m));
      out.write('\n');
      out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
      out.close();
    }
  }

  /** Every line of {@code file}; a line that is not one is reported with its number. */
  public static List<SentMessage> read(Path file) throws IOException {
    List<SentMessage> list = new ArrayList<>();
    List<String> lines = InputFiles.lines(file, 1L << 30, "a list of sent messages");
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) continue;
      try {
        SentMessage m = JSON.readValue(lines.get(i), SentMessage.class);
        if (m.messageId() == null || m.from() == null || m.to().isEmpty())
          throw new IOException("messageId, from and to are required");
        list.add(m);
      } catch (IOException e) {
        throw new IOException(
            file
                + " line "
                + (i + 1)
                + ": not a sent message ("
                + e.getMessage().lines().findFirst().orElse("")
                + ")");
      }
    }
    return list;
  }
}
