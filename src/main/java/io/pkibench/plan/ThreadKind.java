package io.pkibench.plan;

/**
 * Which threads run the workers: platform threads by default, virtual threads for very high
 * concurrency.
 */
public enum ThreadKind {
  PLATFORM,
  VIRTUAL
}
