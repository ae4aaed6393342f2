package io.pkibench.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunStatusTest {
  @Test
  void everyStatus_writtenAndReadAsItsWord() throws IOException {
    for (RunStatus status : RunStatus.values()) {
      String json = RunResultJson.mapper().writeValueAsString(status);
      assertEquals("\"" + status.name().toLowerCase(java.util.Locale.ROOT) + "\"", json);
      assertEquals(status, RunResultJson.mapper().readValue(json, RunStatus.class));
      assertEquals(
          status.name().toLowerCase(java.util.Locale.ROOT),
          status.toString(),
          "reports print the file's word");
    }
  }

  @Test
  void read_unknownStatusWord_isADamagedFileNamingTheField(@TempDir Path dir) throws IOException {
    String golden = Files.readString(Path.of("src/test/resources/golden/run-v1.json"));
    assertTrue(
        golden.contains("\"status\" : \"complete\""),
        "the golden file spells its status as expected");
    Path odd =
        Files.writeString(
            dir.resolve("odd.json"),
            golden.replace("\"status\" : \"complete\"", "\"status\" : \"finished\""));
    IOException e = assertThrows(IOException.class, () -> RunResultJson.read(odd));
    assertTrue(
        e.getMessage().contains("is damaged") && e.getMessage().contains("status"), e.getMessage());
  }
}
