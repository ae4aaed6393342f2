package io.pkibench.server.keyserver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.keyserver.protocol.v2.SignCall;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** How a stream message's calls are cut into runs, each signed by one thread. */
class SignStreamsTest {
  static List<SignCall> calls(int n) {
    return LongStream.rangeClosed(1, n)
        .mapToObj(id -> SignCall.newBuilder().setId(id).build())
        .toList();
  }

  static List<Integer> sizes(List<List<SignCall>> chunks) {
    return chunks.stream().map(List::size).toList();
  }

  @Test
  void chunks_fewerThanTwiceCallsPerHop_oneRunOnTheReadingThread() {
    assertEquals(List.of(1), sizes(SignStreams.chunks(calls(1), 2)));
    assertEquals(
        List.of(2 * SignStreams.CALLS_PER_HOP - 1),
        sizes(SignStreams.chunks(calls(2 * SignStreams.CALLS_PER_HOP - 1), 8)));
  }

  @Test
  void chunks_largerMessages_spreadOverAtMostTheThreads_inRunsOfAtLeastCallsPerHop() {
    int hop = SignStreams.CALLS_PER_HOP;
    assertEquals(List.of(hop, hop), sizes(SignStreams.chunks(calls(2 * hop), 2)));
    assertEquals(
        List.of(5, 5, 4, 4),
        sizes(SignStreams.chunks(calls(18), 8)),
        "18 calls: 4 runs of 4 or more, not 8 of 2 or 3");
    assertEquals(
        List.of(50, 50), sizes(SignStreams.chunks(calls(100), 2)), "never more runs than threads");
    assertEquals(List.of(7), sizes(SignStreams.chunks(calls(7), 1)));
  }

  @Test
  void chunks_keepEveryCallOnceInOrder_andNoneForAnEmptyMessage() {
    List<SignCall> all = calls(37);
    List<SignCall> joined = new ArrayList<>();
    for (List<SignCall> run : SignStreams.chunks(all, 3)) joined.addAll(run);
    assertEquals(all, joined);
    assertEquals(List.of(), SignStreams.chunks(List.of(), 4));
  }
}
