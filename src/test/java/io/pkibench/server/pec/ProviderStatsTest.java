package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The provider's stats file: written with its format, read back typed, another format refused. */
class ProviderStatsTest {
  @TempDir Path dir;

  @Test
  void write_thenRead_theSameFiguresAndTheFormatNamed() throws Exception {
    Files.createDirectories(dir.resolve("tmp"));
    var written =
        new ProviderStats.Snapshot(ProviderStats.FORMAT, 7, 1, 2, 6, 5, 4, 30, 12_345, 1, 3);
    Consumer<String> noLog = line -> {};
    new ProviderStats().write(written, dir, new ProviderLog("pec1.test", noLog));
    Path file = dir.resolve("stats.json");
    assertTrue(
        Files.readString(file).contains("\"format\":\"pkibench.pec-stats/1\""),
        Files.readString(file));
    assertEquals(written, ProviderStats.Snapshot.read(file));
  }

  @Test
  void read_anotherFormatOrNone_refusedNamingTheFileAndBothFormats() throws Exception {
    for (String json :
        List.of(
            "{\"format\":\"pkibench.pec-stats/2\",\"accepted\":1}",
            "{\"accepted\":1,\"waitingJobs\":0}")) {
      Path file = Files.writeString(dir.resolve("stats.json"), json);
      var e =
          assertThrows(ProviderStats.UnknownFormat.class, () -> ProviderStats.Snapshot.read(file));
      assertTrue(
          e.getMessage().contains(file.toString())
              && e.getMessage().contains("this version reads pkibench.pec-stats/1")
              && e.getMessage()
                  .contains(json.contains("/2") ? "format pkibench.pec-stats/2" : "format (none)"),
          e.getMessage());
    }
  }
}
