package io.pkibench.files;

/**
 * A file a workload's parameters name whose text a result keeps, so that a run can be told what it
 * drove without the file at hand: {@code text} as written with every secret's value blanked, {@code
 * sha256} of the file's bytes as they were (to match it to a copy).
 */
public record InputFile(String path, String sha256, String text) {}
