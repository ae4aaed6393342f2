package io.pkibench.server.pec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The process {@link PecSpoolTest} SIGKILLs: stores jobs of {@link #BODY_BYTES} into the spool at
 * {@code args[0]} from 4 threads, without end, and prints {@code ack ID FSYNCS} once each store has
 * returned (what a provider would answer 250 on). Every job's record has the same length, so the
 * test sees one half written by the journal's size.
 */
final class SpoolKillChild {
  static final int BODY_BYTES = 4 << 20;

  /**
   * The job {@code n} of {@code thread}: ids of one width, so that every record has the same
   * length.
   */
  static PecSpool.Job job(String run, int thread, int n, byte[] body) {
    return new PecSpool.Job(
        String.format("%s-%d-%06d", run, thread, n),
        Origin.INCOMING,
        "a@b.test",
        List.of("user1@pec1.test"),
        body);
  }

  public static void main(String[] args) throws Exception {
    Durable durable = new Durable();
    PecSpool spool = new PecSpool(Path.of(args[0]), durable);
    String run = args[1];
    byte[] body = new byte[BODY_BYTES];
    Arrays.fill(body, (byte) 'x');
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int n = 0; ; n++) {
                      PecSpool.Job job = job(run, thread, n, body);
                      String id = job.id();
                      try {
                        spool.store(job);
                      } catch (Exception e) {
                        System.out.println("error " + e);
                        return;
                      }
                      synchronized (System.out) {
                        System.out.println("ack " + id + " " + durable.fsyncs());
                        System.out.flush();
                      }
                    }
                  }));
    }
    for (Thread t : threads) t.join();
  }
}
