package io.pkibench.study;

/**
 * Something a study does to its services around a step or a level; {@link #describe()} is recorded
 * in the result.
 */
public interface StepHook {
  String describe();

  void run(RunningServices services) throws Exception;

  /**
   * Stop and start every service on its port: a fresh JVM, cold caches, as the originals restarted
   * between runs.
   */
  static StepHook restartServices() {
    return new StepHook() {
      @Override
      public String describe() {
        return "restart every service";
      }

      @Override
      public void run(RunningServices services) throws Exception {
        services.restartAll();
      }
    };
  }
}
