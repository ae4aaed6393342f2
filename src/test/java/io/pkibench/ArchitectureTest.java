package io.pkibench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package map of docs/layout.md, held against the compiled classes: no cycle between packages,
 * and each layer imports only from the layers below it. A new dependency that points up fails here
 * with the two classes that make it.
 */
class ArchitectureTest {
  /** Lowest first; a package imports only from its own layer and the rows above it in this list. */
  static final List<Layer> LAYERS =
      List.of(
          new Layer(
              "foundations",
              "..pkibench.pki..",
              "..pkibench.plan..",
              "..pkibench.measure..",
              "..pkibench.keyserver.protocol..",
              "..pkibench.text..",
              "..pkibench.files..",
              "io.pkibench.openbao.."),
          new Layer("key sources", "io.pkibench.keys"),
          new Layer("remote keys", "io.pkibench.keys.remote.."),
          new Layer("key catalog", "io.pkibench.keys.catalog.."),
          new Layer("formats", "..pkibench.formats.."),
          new Layer("workload interfaces", "..pkibench.workload.api.."),
          new Layer(
              "workloads and servers",
              "..pkibench.workload.ades..",
              "..pkibench.workload.apispec..",
              "..pkibench.workload.http..",
              "..pkibench.workload.pec..",
              "..pkibench.workload.primitive..",
              "..pkibench.workload.rsfn..",
              "..pkibench.workload.spi..",
              "..pkibench.workload.tls..",
              "..pkibench.workload.dss..",
              "..pkibench.workload.openbao..",
              "..pkibench.workload.acme..",
              "..pkibench.server.."),
          new Layer("catalog and engine", "..pkibench.workload.catalog..", "..pkibench.engine.."),
          new Layer("results", "..pkibench.results.."),
          new Layer("session and live metrics", "..pkibench.session..", "..pkibench.metrics.."),
          new Layer("analysis and report", "..pkibench.analysis..", "..pkibench.report.."),
          new Layer("dashboard", "..pkibench.dashboard.."),
          new Layer("study", "..pkibench.study.."),
          new Layer("cli", "..pkibench.cli.."));

  record Layer(String name, String... packages) {}

  static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.pkibench");
  }

  @Test
  void packages_haveNoCycles() {
    slices().matching("io.pkibench.(**)").should().beFreeOfCycles().check(classes);
  }

  @Test
  void everyLayer_importsOnlyFromTheLayersBelow() {
    for (int i = 0; i < LAYERS.size() - 1; i++) {
      List<String> above = new ArrayList<>();
      for (Layer higher : LAYERS.subList(i + 1, LAYERS.size()))
        above.addAll(Arrays.asList(higher.packages()));
      noClasses()
          .that()
          .resideInAnyPackage(LAYERS.get(i).packages())
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(above.toArray(String[]::new))
          .as("the " + LAYERS.get(i).name() + " layer imports nothing from the layers above it")
          .check(classes);
    }
  }

  @Test
  void everyPackage_belongsToALayer() {
    List<String> unplaced =
        classes.stream()
            .filter(
                c ->
                    LAYERS.stream()
                        .noneMatch(
                            l ->
                                com.tngtech.archunit.core.domain.PackageMatchers.of(l.packages())
                                    .test(c.getPackageName())))
            .filter(c -> !c.getPackageName().equals("io.pkibench"))
            .map(c -> c.getPackageName())
            .distinct()
            .toList();
    assertTrue(
        unplaced.isEmpty(),
        "packages in no layer of ArchitectureTest.LAYERS (place them): " + unplaced);
  }

  @Test
  void workloads_neverAskWhereAKeyLives() {
    // The catalog may: it checks a plan's --keys value before anything runs.
    List<String> workloads = new ArrayList<>(Arrays.asList(LAYERS.get(6).packages()));
    workloads.removeIf(p -> p.contains("server"));
    workloads.addAll(List.of("..pkibench.workload.api..", "..pkibench.formats.."));
    noClasses()
        .that()
        .resideInAnyPackage(workloads.toArray(String[]::new))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..pkibench.keys.remote..", "..pkibench.keys.catalog..")
        .as("workloads and formats take keys from a KeySource, whatever kind it is")
        .check(classes);
  }

  @Test
  void servers_andWorkloads_doNotImportEachOther() {
    noClasses()
        .that()
        .resideInAnyPackage("..pkibench.server..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..pkibench.workload..")
        .as("a server wires a format to a transport; it runs no workload")
        .check(classes);
    noClasses()
        .that()
        .resideInAnyPackage("..pkibench.workload..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..pkibench.server..")
        .as("a workload talks to a service over the wire, not through its classes")
        .check(classes);
  }
}
