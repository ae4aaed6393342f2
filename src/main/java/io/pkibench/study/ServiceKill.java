package io.pkibench.study;

import io.pkibench.results.StudyRecord;
import java.time.Duration;

/**
 * A fault step's hook: {@code after} the step begins (its warm-up and the seconds before the
 * fault), SIGKILL {@code service}, on a thread of its own so that the step runs through it. Either
 * the whole service, started again {@code downFor} later ({@code serverOnly} false: pix's
 * key-server node, ca's Pebble), or only the server it names in its ready line, which the service
 * itself brings back ({@code serverOnly}: OpenBao under {@code serve openbao}). The description
 * follows {@link StudyRecord.StepRecord#FAULT}, which is how the report knows to draw the timeline.
 */
record ServiceKill(
    String service, Duration after, Duration downFor, boolean serverOnly, String what)
    implements StepHook {
  @Override
  public String describe() {
    return StudyRecord.StepRecord.FAULT + what;
  }

  @Override
  public void run(RunningServices services) {
    Thread t =
        new Thread(
            () -> {
              try {
                Thread.sleep(after.toMillis());
                if (serverOnly) {
                  services.killItsServer(service);
                  return;
                }
                services.kill(service);
                Thread.sleep(downFor.toMillis());
                services.start(service);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception e) {
                // The service stays down: the step's timeline shows it; the log says why.
                services.say("fault: " + service + " was not started again: " + e.getMessage());
              }
            },
            "study-fault-" + service);
    t.setDaemon(true);
    t.start();
  }
}
