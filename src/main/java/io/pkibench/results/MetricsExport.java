package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * How the live metrics of a run reached their receiver ({@code run --metrics}): pushes made, delivered, retried and
 * lost (after bounded retries, or refused), with the last reason a push failed. The result itself never depends on them.
 *
 * @param target the receiver as {@code KIND=URL}, without user info or query
 */
public record MetricsExport(
    String target, long pushes, long delivered, long retries, long lost, @JsonInclude(JsonInclude.Include.NON_NULL) String lastError) {}
