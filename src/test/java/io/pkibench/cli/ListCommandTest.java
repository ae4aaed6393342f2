package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** list: quick by default (no Wycheproof vectors unless --check), one workload, or JSON. */
class ListCommandTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return InThisJvm.run(dir, out, err, args);
  }

  @Test
  void list_withoutCheck_putsNoProviderToTheVectorsAndSaysHowTo() {
    assertEquals(0, run("list"), err.toString());
    assertFalse(out.toString().contains("[Wycheproof: agrees"), out.toString());
    assertFalse(out.toString().contains("[! Wycheproof"), out.toString());
    assertTrue(out.toString().contains("'pkibench list --check' does"), out.toString());
  }

  @Test
  void list_oneWorkload_onlyItsParameters() {
    assertEquals(0, run("list", "digest"), err.toString());
    assertTrue(out.toString().contains("  digest "), out.toString());
    assertFalse(out.toString().contains("  sign "), out.toString());
    assertFalse(out.toString().contains("Key sources"), out.toString());
  }

  @Test
  void list_unknownWorkload_exit2WithASuggestion() {
    assertEquals(2, run("list", "sgn"));
    assertTrue(
        err.toString().contains("WORKLOAD sgn: no such workload")
            && err.toString().contains("did you mean"),
        err.toString());
  }

  @Test
  void list_formatJson_parsesWithWorkloadsParamsAndProviders() throws Exception {
    assertEquals(0, run("list", "--format", "json"), err.toString());
    JsonNode all = RunResultJson.mapper().readTree(out.toString());
    assertTrue(all.get("workloads").size() > 5, out.toString());
    JsonNode sign = null;
    for (JsonNode w : all.get("workloads")) if (w.get("name").asText().equals("sign")) sign = w;
    assertTrue(sign != null && sign.get("params").size() > 0, out.toString());
    assertTrue(all.get("providers").size() > 0, out.toString());
    assertFalse(all.get("keySources").get(0).has("wycheproofMarks"), "no vectors without --check");

    assertEquals(0, run("list", "sign", "--format", "json"), err.toString());
    JsonNode one = RunResultJson.mapper().readTree(out.toString());
    assertEquals(1, one.get("workloads").size());
    assertEquals("sign", one.get("workloads").get(0).get("name").asText());
  }

  @Test
  void list_check_marksTheProviders() throws Exception {
    assertEquals(0, run("list", "--check", "--format", "json"), err.toString());
    JsonNode all = RunResultJson.mapper().readTree(out.toString());
    assertTrue(all.get("keySources").get(0).has("wycheproofMarks"), out.toString());
  }
}
