package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.text.ConsoleTable;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every table pkibench prints to the console fits 120 columns (issue 50: "262-column tables"): the
 * run's level table (closed and open loop, per stage, per mix member), a study's table and the
 * original beside ours, the relative CPU cost, compare, fit and list, rendered by the commands from
 * the result files in src/test/resources (a pix study run measured on this machine, the golden runs
 * of each schema). A line counts as a table's when its cells stand apart (two spaces or more
 * between words after its indent); sentences (notes, verdicts) are left to the terminal's wrap.
 */
class ConsoleTableWidthTest {
  @TempDir Path dir;

  /** Two spaces or more between two words, past the line's indent: cells of a table. */
  private static final Pattern CELLS_APART = Pattern.compile("\\S {2,}\\S");

  private static final List<String> RESULTS =
      List.of(
          "golden/run-v1.0.json",
          "golden/run-v1.json",
          "golden/run-v2.json",
          "golden/run-v3.json",
          "runs/pix-smoke-1.json",
          "runs/pix-smoke-2.json");

  @Test
  void everyConsoleTable_fits120Columns() throws Exception {
    List<String> wide = new ArrayList<>();
    for (String name : RESULTS) wide.addAll(tooWide("report " + name, "report", copy(name)));
    wide.addAll(
        tooWide(
            "compare (a study's long workload names)",
            "compare",
            copy("runs/pix-smoke-1.json"),
            copy("runs/pix-smoke-2.json")));
    wide.addAll(
        tooWide(
            "compare (an open-loop run)",
            "compare",
            copy("golden/run-v2.json"),
            copy("golden/run-v3.json")));
    wide.addAll(
        tooWide(
            "fit",
            "fit",
            copy("runs/pix-smoke-1.json"),
            "--workload",
            "spi-sign pool=1000 seed=20201116"));
    wide.addAll(tooWide("list", "list"));
    assertEquals(List.of(), wide, "table lines over " + ConsoleTable.COLUMNS + " columns");
  }

  /** The check sees a table: the pix study's table, unwrapped, is far over 120. */
  @Test
  void aTableUnwrapped_isCaught() throws Exception {
    List<String[]> rows =
        List.of(
            new String[] {"step", "threads", "ops", "ok", "errors", "avg", "max", "ops/s"},
            new String[] {
              "mTLS 1.2 handshake · client CPU",
              "64",
              "2754794",
              "2754794",
              "0",
              "835.64 ms",
              "145.88 ms",
              "1,623,106"
            });
    String unwrapped = new ConsoleTable("  ", "  ", Set.of(), 1000).render(rows);
    String wrapped = new ConsoleTable("  ", "  ", Set.of(), 60).render(rows);
    assertTrue(unwrapped.lines().anyMatch(l -> l.length() > 60 && isTableLine(l)), unwrapped);
    assertTrue(wrapped.lines().allMatch(l -> l.length() <= 60), wrapped);
    assertTrue(
        wrapped.contains("\n    " + ConsoleTable.CONTINUED + " "),
        "the columns past the width continue below, marked:\n" + wrapped);
  }

  private static boolean isTableLine(String line) {
    return CELLS_APART.matcher(line.stripLeading()).find();
  }

  private List<String> tooWide(String what, String... args) {
    StringWriter out = new StringWriter(), err = new StringWriter();
    int code = InThisJvm.run(dir, out, err, args);
    assertTrue(code != ExitCodes.USAGE, what + ": exit " + code + ": " + err);
    List<String> wide = new ArrayList<>();
    for (String text : List.of(out.toString(), err.toString())) {
      text.lines()
          .filter(l -> l.codePointCount(0, l.length()) > ConsoleTable.COLUMNS && isTableLine(l))
          .forEach(l -> wide.add(what + ": " + l));
    }
    assertTrue(!(out.toString() + err).isBlank(), what + " printed nothing");
    return wide;
  }

  private String copy(String resource) throws Exception {
    Path target = dir.resolve(resource.replace('/', '-'));
    try (var in = getClass().getResourceAsStream("/" + resource)) {
      assertTrue(in != null, "test resource " + resource);
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target.toString();
  }
}
