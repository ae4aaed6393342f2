package io.pkibench.study;

import io.pkibench.files.OutputFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;

/**
 * Makes a samples directory check itself: {@code verify.sh} runs each sample's independent check
 * and prints one line each (exit 0 only when every one verifies; a missing tool is a failure, named
 * with the package that brings it), and {@code VERIFY.md} says the same for a person.
 */
public final class SampleScripts {
  private SampleScripts() {}

  public static void write(Path dir, String study, List<Sample> samples) throws IOException {
    StringBuilder sh =
        new StringBuilder(
            """
        #!/usr/bin/env bash
        # Checks every sample of 'pkibench study %s' with an independent tool; one line each.
        # Exit 0 only when every sample verifies.
        set -u
        cd "$(dirname "$0")"
        failed=0
        check() {  # FILE WHAT TOOLS COMMAND
          local file="$1" what="$2" tools="$3" command="$4" t
          for t in $tools; do
            if ! command -v "$t" >/dev/null 2>&1; then
              echo "CANNOT CHECK $file ($what): '$t' is not installed (Debian: apt-get install $(package "$t"))"
              failed=$((failed + 1)); return
            fi
          done
          if out=$(bash -c "$command" 2>&1); then echo "OK   $file ($what)"
          else echo "FAIL $file ($what): $command"; echo "$out" | tail -n 3 | sed 's/^/       /'; failed=$((failed + 1)); fi
        }
        package() { case "$1" in pdfsig) echo poppler-utils;; *) echo "$1";; esac; }
        """
                .formatted(study));
    for (Sample s : samples) {
      sh.append("check ")
          .append(quote(s.file()))
          .append(' ')
          .append(quote(s.what()))
          .append(' ')
          .append(quote(String.join(" ", s.needs())))
          .append(' ')
          .append(quote(s.check()))
          .append('\n');
    }
    sh.append("echo \"$(( ")
        .append(samples.size())
        .append(" - failed )) verified, $failed failed\"\n[ \"$failed\" -eq 0 ]\n");
    Path script = dir.resolve("verify.sh");
    OutputFiles.replaceScript(script, sh.toString().getBytes(StandardCharsets.UTF_8));

    StringBuilder md =
        new StringBuilder(
            "# Samples of `pkibench study "
                + study
                + "`\n\n"
                + "Each file was made by the same code the study measured. Check them all with `./verify.sh` (one line per file, exit 0 when all verify),\n"
                + "or one by one with the commands below, run in this directory. Tools: "
                + String.join(
                    ", ", new TreeSet<>(samples.stream().flatMap(s -> s.needs().stream()).toList()))
                + ".\n\n"
                + "| file | what | check |\n|---|---|---|\n");
    for (Sample s : samples)
      md.append("| `")
          .append(s.file())
          .append("` | ")
          .append(s.what())
          .append(" | `")
          .append(s.check().replace("|", "\\|"))
          .append("` |\n");
    OutputFiles.replace(dir.resolve("VERIFY.md"), md.toString());
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
