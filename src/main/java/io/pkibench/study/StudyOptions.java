package io.pkibench.study;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The options every study takes: {@code quick} (a smoke run: short probes, a cold service),
 * {@code duration} (measured time per step, the original methodology's), where keys live and the
 * test PKI; a study's own options live in the study itself.
 */
public record StudyOptions(boolean quick, Duration duration, String keys, Path pkiDir, Path pinFile) {}
