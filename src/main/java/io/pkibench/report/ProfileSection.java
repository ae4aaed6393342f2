package io.pkibench.report;

import io.pkibench.results.CpuProfile;
import java.util.Locale;

/**
 * The report's "where the CPU went" section of a run made with {@code --profile}: per workload and
 * side (client, each service), the frames with the most self time in the measured iterations, and
 * the flame graph beside the report (drawn by async-profiler's JFR converter; a profile written
 * before pkibench drew them says why it has none).
 */
public final class ProfileSection {
  private ProfileSection() {}

  public static String html(CpuProfile profile) {
    StringBuilder h = new StringBuilder("<section id=\"profile\"><h2>Where the CPU went</h2>\n");
    h.append(
        "<p class=\"muted\">JDK Flight Recorder, execution samples of the measured iterations (every 10 ms per running Java thread);"
            + " self time: the method on top of the stack. Native code (a JNI provider such as ACCP, system calls such as fsync) is not sampled"
            + " here: a workload whose cryptography is native shows only the Java around it. Recordings kept beside the result:");
    for (CpuProfile.Recording r : profile.recordings()) {
      h.append(" ")
          .append(Html.esc(r.side()))
          .append(" → ")
          .append(
              r.jfr() == null ? Html.esc(r.problem()) : "<code>" + Html.esc(r.jfr()) + "</code>")
          .append(";");
    }
    h.append("</p>\n");
    if (profile.renderer() == null)
      h.append("<p class=\"warn\">").append(Html.esc(profile.rendererNote())).append("</p>\n");
    else
      h.append("<p class=\"muted\">flame graphs drawn by ")
          .append(Html.esc(profile.renderer()))
          .append("</p>\n");
    if (profile.workloads().isEmpty())
      h.append("<p>No measured iteration finished, so there is nothing to attribute.</p>\n");
    for (CpuProfile.Workload w : profile.workloads()) {
      h.append("<h3>").append(Html.esc(w.workload())).append("</h3>\n");
      for (CpuProfile.Side s : w.sides()) {
        h.append("<h4>")
            .append(Html.esc(s.side()))
            .append(" · ")
            .append(s.samples())
            .append(" samples</h4>\n");
        if (s.topFrames().isEmpty()) {
          h.append(
              "<p class=\"muted\">no Java frame was sampled on this side while the workload was measured</p>\n");
        } else {
          h.append(
              "<table><tr><th class=\"l\">frame (self time)</th><th>samples</th><th>share</th></tr>\n");
          for (CpuProfile.Frame f : s.topFrames()) {
            h.append("<tr><td class=\"l\"><code>")
                .append(Html.esc(f.frame()))
                .append("</code></td><td>")
                .append(f.samples())
                .append("</td><td>")
                .append(String.format(Locale.ROOT, "%.1f%%", 100.0 * f.samples() / s.samples()))
                .append("</td></tr>\n");
          }
          h.append("</table>\n");
        }
        if (s.flameGraph() != null && !CpuProfile.isPlainFileName(s.flameGraph())) {
          h.append("<p class=\"warn\">flame graph not shown: the profile names it <code>")
              .append(Html.esc(s.flameGraph()))
              .append(
                  "</code>, not a plain file name beside the report (letters, digits, . _ + -)</p>\n");
        } else if (s.flameGraph() != null) {
          h.append("<p><a href=\"")
              .append(Html.esc(s.flameGraph()))
              .append("\">flame graph: ")
              .append(Html.esc(s.side()))
              .append("</a></p>\n")
              .append("<iframe src=\"")
              .append(Html.esc(s.flameGraph()))
              .append("\" style=\"width:100%;height:420px;border:1px solid #ddd\"></iframe>\n");
        }
      }
    }
    return h.append("</section>\n").toString();
  }
}
