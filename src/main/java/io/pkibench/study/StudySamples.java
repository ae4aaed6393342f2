package io.pkibench.study;

import io.pkibench.files.OutputFiles;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.formats.ades.XadesVerifier;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.server.dss.DssServer;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.dss.DssSigningWorkload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One artifact per transaction type ({@code --save-samples DIR}): the measured service's own first
 * answer that passed its check (kept by the workload, {@code -p keep-answer}), never one made in
 * pkibench's process, with the certificates an outsider needs and, per file, the independent check
 * that verifies it (see {@link SampleScripts}).
 */
public final class StudySamples {
  private StudySamples() {}

  /** Where a type's workload keeps its answer, under the samples directory. */
  static Path answers(Path samples, String token) {
    return samples.resolve(".answers").resolve(token);
  }

  /** The built-in signer's workloads whose answers are kept as samples (a login leaves none). */
  static boolean kept(String workload) {
    return workload.startsWith("http:") && !workload.equals("http:auth");
  }

  /**
   * The samples of the answers the study's workloads kept under {@code dir}, in the study's order;
   * a type not measured, or no answer of which passed its check, has none. The kept files are moved
   * into place.
   */
  public static List<Sample> write(Path dir, TestPki pki) throws Exception {
    Files.createDirectories(dir);
    List<Sample> samples = new ArrayList<>();
    // Trust: the root alone; the intermediates (and the TSA's certificate) only as untrusted
    // helpers.
    OutputFiles.replace(
        dir.resolve("root-ca.pem"), Files.readString(pki.certificatePem("root-ca")));
    OutputFiles.replace(
        dir.resolve("intermediates.pem"),
        Files.readString(pki.certificatePem("intermediate-a"))
            + Files.readString(pki.certificatePem("intermediate-b")));
    OutputFiles.replace(
        dir.resolve("tsa-untrusted.pem"),
        Files.readString(pki.certificatePem("intermediate-a"))
            + Files.readString(pki.certificatePem("intermediate-b"))
            + Files.readString(pki.certificatePem("tsa")));
    for (String cades : List.of("cades", "cades-t")) {
      String file = cades + ".p7s";
      String content = cades + ".document.pdf";
      if (!take(dir, cades, file, content)) continue;
      samples.add(
          new Sample(
              file,
              (cades.equals("cades") ? "CAdES-B-B" : "CAdES-B-T")
                  + " detached signature of "
                  + content
                  + " (the document one operation sent), as the service answered",
              "openssl cms -verify -binary -inform DER -in "
                  + file
                  + " -content "
                  + content
                  + " -CAfile root-ca.pem -certfile intermediates.pem -out /dev/null",
              List.of("openssl")));
    }
    for (String pades : List.of("pades", "pades-t")) {
      String file = pades + ".pdf";
      if (!take(dir, pades, file, null)) continue;
      samples.add(
          new Sample(
              file,
              (pades.equals("pades") ? "PAdES-B-B" : "PAdES-B-T")
                  + " signed PDF, as the service answered",
              pdfsigCheck(file),
              List.of("pdfsig")));
    }
    if (take(dir, "timestamp", "timestamp.tsr", "timestamp.tsq"))
      samples.add(
          new Sample(
              "timestamp.tsr",
              "RFC 3161 time-stamp reply to timestamp.tsq (one operation's request), as the service"
                  + " answered",
              "openssl ts -verify -in timestamp.tsr -queryfile timestamp.tsq -CAfile root-ca.pem -untrusted tsa-untrusted.pem",
              List.of("openssl")));
    deleteTree(dir.resolve(".answers"));
    return samples;
  }

  /**
   * Moves the answer kept for {@code token} to {@code file} and, given {@code sentAs}, what was
   * sent for it there; false when none was kept.
   */
  static boolean take(Path dir, String token, String file, String sentAs) throws IOException {
    Path kept = answers(dir, token);
    if (!Files.isRegularFile(kept.resolve("answer"))) return false;
    Files.move(kept.resolve("answer"), dir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
    if (sentAs != null)
      Files.move(kept.resolve("sent"), dir.resolve(sentAs), StandardCopyOption.REPLACE_EXISTING);
    return true;
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }

  /**
   * DSS's outputs beside ours, under the same outside checks: EU DSS's REST services started in
   * this process on a free loopback port for as long as it takes, each format signed through them
   * by the dss:* client, and checked as ours are (openssl cms for CAdES, pdfsig for PAdES, xmlsec1
   * for XAdES). {@link #write} must have written the shared files.
   */
  public static List<Sample> writeDss(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    List<Sample> samples = new ArrayList<>();
    OutputFiles.replace(
        dir.resolve("document.bin"),
        AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 137 * 1024));
    // DSS's own keys (its TSA, its server-signing token) are key material in a key store: the test
    // PKI's software keys,
    // as 'serve dss' holds them; the client signs with --keys, wherever they live.
    try (DssServer dss =
        DssServer.forTestPki(
            pki,
            new SoftwareKeySource(() -> pki, ProviderChoice.JDK),
            "127.0.0.1",
            0,
            clock,
            line -> {})) {
      dss.start();
      WorkloadContext context = new WorkloadContext(keys, false, () -> pki, clock);
      for (var f : TwoPhaseSigner.Format.values()) {
        DssSigningWorkload.Factory factory = new DssSigningWorkload.Factory(f.flag);
        Map<String, String> given = new HashMap<>(Map.of(ParamSpec.TARGET, dss.baseUrl()));
        if (f == TwoPhaseSigner.Format.CADES || f == TwoPhaseSigner.Format.CADES_T)
          given.put("size", "137k");
        byte[] signed;
        try (DssSigningWorkload w =
            (DssSigningWorkload)
                factory.create(context, Params.resolve(factory.name(), factory.params(), given))) {
          signed = w.signOnce();
        }
        String file =
            "dss-"
                + f.flag
                + switch (f) {
                  case CADES, CADES_T -> ".p7s";
                  case PADES, PADES_T -> ".pdf";
                  case XADES -> ".xml";
                };
        OutputFiles.replace(dir.resolve(file), signed);
        samples.add(
            switch (f) {
              case CADES, CADES_T ->
                  new Sample(
                      file,
                      "EU DSS's "
                          + (f.timestamped() ? "CAdES-B-T" : "CAdES-B-B")
                          + " detached signature of document.bin (its REST API)",
                      "openssl cms -verify -binary -inform DER -in "
                          + file
                          + " -content document.bin -CAfile root-ca.pem -certfile intermediates.pem -out /dev/null",
                      List.of("openssl"));
              case PADES, PADES_T ->
                  new Sample(
                      file,
                      "EU DSS's "
                          + (f.timestamped() ? "PAdES-B-T" : "PAdES-B-B")
                          + " signed PDF (its REST API)",
                      pdfsigCheck(file),
                      List.of("pdfsig"));
              case XADES ->
                  new Sample(
                      file,
                      "EU DSS's XAdES-B-B enveloped signature (its REST API)",
                      "xmlsec1 --verify --trusted-pem root-ca.pem --untrusted-pem intermediates.pem --id-attr:Id "
                          + XadesVerifier.XADES_NS
                          + ":SignedProperties "
                          + file,
                      List.of("xmlsec1"));
            });
      }
    }
    return samples;
  }

  /**
   * pdfsig's verdict on a signed PDF: the signature valid and its byte range the whole file ("Not
   * total document signed" means an update follows the signature, which "Signature is Valid." alone
   * lets through).
   */
  static String pdfsigCheck(String file) {
    return "pdfsig "
        + file
        + " | grep -q 'Signature is Valid.' && pdfsig "
        + file
        + " | grep -q -- '- Total document signed'";
  }
}
