package io.pkibench.engine;

/**
 * A series could not be run (a worker could not set up, an operation hung); the level is lost, the
 * run goes on.
 */
public final class EngineException extends Exception {
  public EngineException(String message, Throwable cause) {
    super(message, cause);
  }
}
