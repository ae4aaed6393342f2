package io.pkibench.study;

import java.util.List;

/**
 * One artifact a study writes with {@code --save-samples}, and how an outsider checks it: {@code
 * check} is a shell command run in the samples directory that exits 0 when the artifact verifies,
 * with an independent tool ({@code openssl}, {@code xmlsec1}, {@code pdfsig}). {@code needs} names
 * the tools.
 */
public record Sample(String file, String what, String check, List<String> needs) {
  public Sample {
    needs = List.copyOf(needs);
  }
}
