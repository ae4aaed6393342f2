package io.pkibench.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.measure.CpuSet;
import io.pkibench.metrics.LatencyBuckets;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.metrics.SeriesFigures;
import io.pkibench.metrics.SeriesKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The page drawn in a process of its own: the readings sent over its input are what it serves, the
 * end is the page it freezes on, and it goes when its input goes (the measured process ended or
 * died), saying what it cost.
 */
class LivePageProcessTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());

  private static LivePageServer.Args args(int port) {
    return new LivePageServer.Args(
        "apart", "127.0.0.1", port, "127.0.0.1", 10, DashboardServer.Limits.DEFAULT);
  }

  /** Second {@code s} of a run doing 400 operations a second, 10 of them failing. */
  private static MetricsSnapshot second(int s) {
    long done = 400L * s;
    long[] buckets = new long[LatencyBuckets.count()];
    for (int i = 0; i < buckets.length; i++) buckets[i] = i < 3 ? done / 2 : done;
    return new MetricsSnapshot(
        "apart",
        1_000L * s,
        List.of(
            new SeriesFigures(
                new SeriesKey("sign", "r400", "measure", null, null),
                done,
                10L * s,
                buckets,
                done * 0.001,
                0.002,
                400,
                400,
                8,
                true)),
        s * 0.05,
        Double.NaN);
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void readingsSent_areWhatItServes_theEndFreezesThePage_andItGoesWithItsInput() throws Exception {
    LivePageProcess page = LivePageProcess.start(args(0), log::add);
    ProcessHandle process = ProcessHandle.of(page.pid()).orElseThrow();
    try {
      assertTrue(page.pid() != ProcessHandle.current().pid(), "a process of its own");
      for (int s = 0; s <= 4; s++) page.send(PageMessage.reading(second(s), null, null));
      JsonNode live = null;
      for (int tries = 0; tries < 50; tries++) { // the process reads its input as it comes
        live = JSON.readTree(get(page.url() + "live.json").body());
        if (live.get("sequence").asLong() == 5) break;
        Thread.sleep(100);
      }
      assertEquals(5, live.get("sequence").asLong(), live.toString());
      assertEquals(400.0, live.get("opsPerSecond").asDouble(), 1e-9);
      assertEquals(10.0, live.get("errorsPerSecond").asDouble(), 1e-9);
      assertEquals(0.05, live.get("clientCpuCores").asDouble(), 1e-9);
      assertFalse(live.has("serviceCpuCores"), "NaN crosses the pipe as not read");
      assertFalse(live.get("ended").asBoolean());

      page.sendWithin(PageMessage.end("<!doctype html><title>the report</title>"));
      boolean ended = false;
      for (int tries = 0; tries < 50 && !ended; tries++) { // sent is not yet read: CI saw the gap
        ended = JSON.readTree(get(page.url() + "live.json").body()).get("ended").asBoolean();
        if (!ended) Thread.sleep(100);
      }
      assertTrue(ended, "the end reached the page within 5 s");
      assertEquals("<!doctype html><title>the report</title>", get(page.url()).body());
    } finally {
      double cpu = page.stop();
      assertTrue(cpu > 0 && cpu < 60, "its own CPU seconds, said as it ended: " + cpu);
    }
    assertFalse(process.isAlive(), "gone with its input");
    assertEquals(List.of(), log, "nothing to complain of");
  }

  @Test
  void aTakenPort_failsTheStart_withThePageProcesssReason() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      IOException e =
          assertThrows(
              IOException.class, () -> LivePageProcess.start(args(taken.getLocalPort()), log::add));
      assertTrue(
          e.getMessage().startsWith("--dashboard: cannot listen on")
              && e.getMessage().contains(Integer.toString(taken.getLocalPort())),
          e.getMessage());
    }
  }

  @Test
  void aPageProcessThatDied_isSaidOnce_andSendingGoesOnWithoutIt() throws Exception {
    LivePageProcess page = LivePageProcess.start(args(0), log::add);
    ProcessHandle process = ProcessHandle.of(page.pid()).orElseThrow();
    process.destroyForcibly();
    process.onExit().get();
    for (int s = 0; s < 3; s++) page.send(PageMessage.reading(second(s), null, null));
    page.sendWithin(PageMessage.end("<p>end</p>"));
    page.stop();
    assertEquals(1, log.size(), log.toString());
    assertTrue(
        log.get(0).contains("the page's process has ended")
            && log.get(0).contains("the run goes on without its page"),
        log.get(0));
  }

  @Test
  void placement_offTheCoresThisProcessIsHeldTo_whenThereAreOthers() {
    assertEquals(
        CpuSet.parse("1"), LivePageProcess.placement(CpuSet.parse("0"), CpuSet.parse("0-1")));
    assertEquals(
        CpuSet.parse("0,3"),
        LivePageProcess.placement(CpuSet.parse("1-2"), CpuSet.parse("0-3")),
        "a study's client cores: the page on the others");
    assertEquals(
        null,
        LivePageProcess.placement(CpuSet.parse("0-1"), CpuSet.parse("0-1")),
        "held to nothing: where this process runs");
  }
}
