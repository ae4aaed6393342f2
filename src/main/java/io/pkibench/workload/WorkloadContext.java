package io.pkibench.workload;

import io.pkibench.keys.KeySource;

/** What a workload may use: where keys live, and whether each operation checks its own output. */
public record WorkloadContext(KeySource keys, boolean verify) {}
