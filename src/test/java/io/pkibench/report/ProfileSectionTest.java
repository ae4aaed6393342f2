package io.pkibench.report;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.CpuProfile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The flame graphs a {@code *.profile.json} names are linked from the report only as plain file
 * names beside it.
 */
class ProfileSectionTest {
  static final List<String> HOSTILE =
      List.of(
          "javascript:alert(1)",
          "../../etc/passwd",
          "https://evil.example/graph.html",
          "/etc/passwd",
          "JaVaScRiPt:alert(1)",
          "data:text/html,<script>alert(1)</script>",
          "//evil.example/x.html",
          "sub/../../x.html",
          "a\\..\\b.html",
          " javascript:alert(1)",
          "x.html\" onload=\"alert(1)",
          "");

  static CpuProfile profileWithGraphs(List<String> graphs) {
    List<CpuProfile.Side> sides =
        graphs.stream()
            .map(
                g ->
                    new CpuProfile.Side(
                        "side " + g, 10, List.of(new CpuProfile.Frame("a.B.c", 10)), g))
            .toList();
    return new CpuProfile(
        CpuProfile.FORMAT,
        "test",
        null,
        List.of(new CpuProfile.Recording("client (this JVM)", "javascript:alert(2)", null)),
        List.of(
            new CpuProfile.Workload("sign", Instant.EPOCH, Instant.EPOCH.plusSeconds(1), sides)));
  }

  /** Every value of an href or src attribute in {@code html}, as the browser would read it. */
  static List<String> linkTargets(String html) {
    Matcher m = Pattern.compile("(?i)\\b(?:href|src)\\s*=\\s*\"([^\"]*)\"").matcher(html);
    List<String> targets = new ArrayList<>();
    while (m.find())
      targets.add(
          m.group(1)
              .replace("&quot;", "\"")
              .replace("&amp;", "&")
              .replace("&#39;", "'")
              .replace("&lt;", "<")
              .replace("&gt;", ">"));
    return targets;
  }

  @Test
  void html_graphNamesThatAreNoPlainFileName_neverBecomeALinkOrAFrame() {
    String html = ProfileSection.html(profileWithGraphs(HOSTILE));
    List<String> targets = linkTargets(html);
    for (String hostile : HOSTILE) {
      assertFalse(
          targets.contains(hostile), "'" + hostile + "' is an href/src of the report: " + targets);
    }
    assertTrue(targets.isEmpty(), "no link or frame at all: " + targets);
    assertFalse(
        html.toLowerCase(Locale.ROOT).contains("<script"), "nothing it was given became markup");
    assertTrue(html.contains("not shown"), "says why a flame graph is not shown");
  }

  @Test
  void html_plainFileNameOfAGraph_linkedAndFramed() {
    String html =
        ProfileSection.html(
            profileWithGraphs(List.of("r.client.1.html", "study-2_b.pid-42.3.html")));
    assertTrue(
        linkTargets(html).containsAll(List.of("r.client.1.html", "study-2_b.pid-42.3.html")), html);
    assertTrue(html.contains("<iframe src=\"r.client.1.html\""), html);
  }
}
