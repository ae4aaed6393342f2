package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.ServiceComparison;
import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.testing.TestKeys;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * restpki against several services: the flag, the steps each service gets, and the side-by-side
 * table its report prints.
 */
class RestPkiServicesTest {

  @Test
  void parse_namesEveryBadService() {
    List<String> problems = new ArrayList<>();
    var ok =
        RestPkiStudy.Service.parse(
            "builtin,dss,dss:https://dss.example:8443/services/rest", problems);
    assertEquals(List.of(), problems);
    assertEquals(
        List.of("builtin", "dss", "dss@dss.example:8443"),
        ok.stream().map(RestPkiStudy.Service::label).toList());
    RestPkiStudy.Service.parse("builtin,signer,dss:ftp://x/y,builtin", problems);
    assertEquals(3, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("--service signer: use builtin, dss"), problems.get(0));
    assertTrue(
        problems.get(1).contains("--service dss:ftp://x/y: give DSS's REST root"), problems.get(1));
    assertTrue(problems.get(2).contains("named twice"), problems.get(2));
  }

  @Test
  void problems_anOutsideServiceNothingAnswersAt_isNamedBeforeAnythingStarts(@TempDir Path dir)
      throws Exception {
    int closed;
    try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    String url = "http://127.0.0.1:" + closed + "/services/rest";
    Study study =
        new RestPkiStudy(false, RestPkiStudy.Service.parse("dss:" + url, new ArrayList<>()), null);
    List<String> problems =
        study.problems(
            new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null));
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems
            .get(0)
            .startsWith("--service dss:" + url + ": cannot connect to 127.0.0.1:" + closed),
        problems.get(0));
  }

  @Test
  void steps_eachServiceInTurn_sameTypes_naWhereDssHasNoCounterpart(@TempDir Path dir)
      throws Exception {
    Study study =
        new RestPkiStudy(
            false,
            RestPkiStudy.Service.parse(
                "builtin,dss,dss:http://127.0.0.1:9/services/rest", new ArrayList<>()),
            null);
    // steps are planned without reaching the outside service; problems() is where it is checked
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null);
    RunningServices services =
        RunningServices.plan(study.services(options), List.of("java"), Map.of(), line -> {});
    assertEquals(List.of("signer", "dss"), services.names(), "the outside DSS is not started");
    List<Step> steps = study.steps(options, services);
    assertEquals(18, steps.size());
    Step cades =
        steps.stream().filter(s -> s.label().equals("CAdES [dss]")).findFirst().orElseThrow();
    assertEquals("dss:cades", cades.plan().workloads().get(0).name());
    assertEquals(
        "pdf",
        cades.plan().workloads().get(0).params().get("document"),
        "DSS's CAdES signs the study's one PDF too");
    Step ours =
        steps.stream().filter(s -> s.label().equals("CAdES [builtin]")).findFirst().orElseThrow();
    assertEquals("pdf", ours.plan().workloads().get(0).params().get("document"), "so does ours");
    assertEquals(
        services.url("dss") + "/services/rest",
        cades.plan().workloads().get(0).params().get("target"));
    assertEquals("service:dss", cades.plan().cpu(), "each step charges its own service's pid");
    assertEquals(
        cades.probe().plan().load(),
        steps.get(1).probe().plan().load(),
        "same levels as the built-in service's");
    Step outside =
        steps.stream()
            .filter(s -> s.label().equals("PAdES [dss@127.0.0.1:9]"))
            .findFirst()
            .orElseThrow();
    assertEquals(
        RunningServices.NO_CPU, outside.plan().cpu(), "no pid to read for a service elsewhere");
    Step login =
        steps.stream()
            .filter(s -> s.label().equals("Authentication [dss]"))
            .findFirst()
            .orElseThrow();
    assertEquals(null, login.plan());
    assertTrue(
        login.notApplicableBecause().contains("no certificate login"),
        login.notApplicableBecause());
  }

  @Test
  void report_setsServicesSideBySide_withRatiosAndNa(@TempDir Path dir) throws Exception {
    Study study =
        new RestPkiStudy(false, RestPkiStudy.Service.parse("builtin,dss", new ArrayList<>()), null);
    // the built-in service does 100 ops/s at 50% of 2 cores (10 ms of CPU per operation), DSS 20
    // ops/s at 40% (40 ms)
    RunResult result =
        StudyRuns.run(
            study,
            dir,
            label -> label.endsWith("[dss]") ? 20 : 100,
            label -> label.endsWith("[dss]") ? 0.4 : 0.5);
    Map<String, String[]> rows =
        ServiceComparison.table(result).stream()
            .collect(Collectors.toMap(r -> r[0], r -> r, (a, b) -> a));
    String[] header = rows.get("transaction");
    assertEquals(
        List.of(
            "transaction",
            "builtin ops/min",
            "dss ops/min",
            "builtin CPU/op",
            "dss CPU/op",
            "builtin p99",
            "dss p99",
            "dss / builtin ops/min",
            "dss / builtin CPU/op"),
        Arrays.asList(header));
    String[] cades = rows.get("CAdES");
    assertEquals("6,000", cades[1]);
    assertEquals("1,200", cades[2]);
    assertEquals("0.20×", cades[7], Arrays.toString(cades));
    assertEquals("4.00×", cades[8], "DSS's CPU per operation over ours: " + Arrays.toString(cades));
    String[] login = rows.get("Authentication");
    assertEquals("n/a — DSS has no certificate login", login[2]);
    assertEquals("-", login[7]);
    String terminal = StudyTables.terminal(result);
    assertTrue(
        terminal.contains("services side by side")
            && terminal.contains("Timestamp [dss]: n/a — DSS has no RFC 3161 endpoint"),
        terminal);
  }

  /**
   * DSS's signatures, made through its REST API, under the same outside checks as ours: openssl
   * cms, pdfsig, xmlsec1.
   */
  @Test
  @org.junit.jupiter.api.Timeout(180)
  void dssSamples_passTheSameOutsideChecksAsOurs(@TempDir Path dir) throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    Path samples = dir.resolve("samples");
    List<Sample> all = new ArrayList<>(StudySamples.write(samples, fixture.pki));
    all.addAll(StudySamples.writeDss(samples, fixture.pki, fixture.keys, InstantSource.system()));
    SampleScripts.write(samples, "restpki", all);
    Process p =
        new ProcessBuilder("bash", "verify.sh")
            .directory(samples.toFile())
            .redirectErrorStream(true)
            .start();
    String said = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), said);
    for (String file :
        List.of(
            "dss-cades.p7s",
            "dss-cades-t.p7s",
            "dss-pades.pdf",
            "dss-pades-t.pdf",
            "dss-xades.xml")) {
      assertTrue(said.contains("OK   " + file), file + " checked: " + said);
    }
    // a DSS PDF with one byte changed inside what it signs fails pdfsig: the check can fail
    byte[] pdf = Files.readAllBytes(samples.resolve("dss-pades.pdf"));
    pdf[200] ^= 0x01;
    Files.write(samples.resolve("dss-pades.pdf"), pdf);
    Process again =
        new ProcessBuilder("bash", "verify.sh")
            .directory(samples.toFile())
            .redirectErrorStream(true)
            .start();
    String second = new String(again.getInputStream().readAllBytes());
    assertTrue(again.waitFor() != 0 && !second.contains("OK   dss-pades.pdf"), second);
  }
}
