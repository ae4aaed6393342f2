package io.pkibench.workload.api;

/**
 * A workload whose verdicts come from the key source's own verifier (the {@code verify} workload
 * checks signatures with the source's provider): a run through a PKCS#11 token puts that token to
 * Project Wycheproof's vectors first and records what it got wrong, since only the run has the
 * token at hand.
 */
public interface VerifiesWithKeySource {}
