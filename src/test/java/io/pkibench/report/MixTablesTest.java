package io.pkibench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.Analysis;
import io.pkibench.results.MixFixtures;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.text.Units;
import java.util.List;
import org.junit.jupiter.api.Test;

class MixTablesTest {
  private static final Analysis.Options OPTIONS = new Analysis.Options(null, 0.7, null);

  @Test
  void rows_mixFixture_eachMemberAskedBesideAchievedThenTheTotal() {
    List<String[]> rows = MixTables.rows(MixFixtures.mixRun().workloads().get(0));
    assertEquals(4, rows.size(), "header, sign, verify, total");
    assertEquals(
        List.of("400/s", "sign", "70.0%", "70.0%", "560", "560", "0"),
        List.of(rows.get(1)).subList(0, 7));
    assertEquals(
        List.of("400/s", "verify", "30.0%", "30.0%", "240", "220", "20"),
        List.of(rows.get(2)).subList(0, 7));
    assertEquals(
        List.of("400/s", "total", "100.0%", "100.0%", "800", "780", "20"),
        List.of(rows.get(3)).subList(0, 7));
    assertEquals("n/a", rows.get(1)[12], "no member has CPU of its own");
    // 0.5 CPU-seconds per 390 successes each second: 1.28 ms of CPU per operation
    assertEquals(Units.nanos(1e9 * 0.5 / 390), rows.get(3)[12]);
  }

  @Test
  void render_mixAndPlainRuns_membersOnlyForTheMix() {
    RunResult mix = MixFixtures.mixRun();
    String table = TerminalTable.render(mix, Analysis.of(mix, OPTIONS));
    assertTrue(table.contains("by member") && table.contains("verify  30.0%    30.0%"), table);
    String html = HtmlReport.render(mix, Analysis.of(mix, OPTIONS));
    assertTrue(
        html.contains("<section id=\"mix\">")
            && html.contains("<td class=\"l\">verify</td><td>30.0%</td><td>30.0%</td>"),
        html);
    RunResult plain =
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{100}}, new long[] {1_000_000});
    assertTrue(!TerminalTable.render(plain, Analysis.of(plain, OPTIONS)).contains("by member"));
    assertTrue(!HtmlReport.render(plain, Analysis.of(plain, OPTIONS)).contains("id=\"mix\""));
  }
}
