package io.pkibench.workload.dss;

import com.fasterxml.jackson.databind.JsonNode;
import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import eu.europa.esig.dss.ws.dto.RemoteDocument;
import eu.europa.esig.dss.ws.validation.dto.DataToValidateDTO;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.ades.Signers;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A signed document posted to DSS's {@code /validation/validateSignature}: an operation succeeds
 * only when DSS's simple report gives every signature the indication TOTAL_PASSED; any other
 * indication is a failure counted under it (with its sub-indication). The document is signed once
 * at the start with the key from {@code --keys} ({@code -p format}), or read from {@code -p
 * sample=FILE} (a user's own, or a tampered one).
 */
public final class DssValidateWorkload implements Workload {
  static final String PASSED = "TOTAL_PASSED";
  private final DssClient client;
  private final DataToValidateDTO request;

  private DssValidateWorkload(DssClient client, byte[] signed, String name) {
    this.client = client;
    this.request =
        new DataToValidateDTO(
            new RemoteDocument(signed, name), (RemoteDocument) null, (RemoteDocument) null);
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "dss:validate";
    }

    @Override
    public String description() {
      return "a signed document validated by EU DSS's REST API at --target; succeeds only on TOTAL_PASSED";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          DssWorkloads.TARGET,
          DssWorkloads.TRUST,
          Signers.ALG,
          ParamSpec.choice(
              "format",
              "cades",
              "what is signed at the start and validated: an enveloping CAdES-B-B, a PAdES-B-B or a XAdES-B-B",
              "cades",
              "pades",
              "xades"),
          ParamSpec.free("size", "4k", "bytes of the CAdES or XAdES document signed at the start"),
          ParamSpec.free(
              "sample", "", "a signed file to validate instead of one signed at the start"));
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>(DssWorkloads.problems(params));
      String sample = params.get("sample");
      if (!sample.isEmpty() && !Files.isReadable(Path.of(sample)))
        problems.add("-p sample=" + sample + ": no such readable file; give a signed document");
      return problems;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      byte[] signed;
      String name;
      String sample = params.get("sample");
      if (!sample.isEmpty()) {
        signed = Files.readAllBytes(Path.of(sample));
        name = Path.of(sample).getFileName().toString();
      } else {
        TwoPhaseSigner.Format format = TwoPhaseSigner.Format.parse(params.get("format"));
        SigningKey key =
            context.keys().key(Entity.signerAlias(KeyAlgorithm.parse(params.get("alg")), 1));
        byte[] content = AdesChecks.sampleDocument(format, params.bytes("size"));
        signed =
            new TwoPhaseSigner(null, context.clock())
                .sign(
                    format,
                    new InMemoryDocument(content),
                    key,
                    format == TwoPhaseSigner.Format.CADES ? SignaturePackaging.ENVELOPING : null);
        name =
            switch (format) {
              case PADES, PADES_T -> "signed.pdf";
              case XADES -> "signed.xml";
              default -> "signed.p7m";
            };
      }
      return new DssValidateWorkload(DssWorkloads.client(context, params), signed, name);
    }
  }

  @Override
  public Operation newOperation(int worker) {
    return this::validate;
  }

  private void validate() throws Exception {
    JsonNode reports = client.post("validation/validateSignature", request, JsonNode.class);
    List<String> indications = indications(reports);
    if (indications.isEmpty())
      throw new IOException("DSS's simple report names no signature: nothing was validated");
    for (String indication : indications) {
      if (!indication.startsWith(PASSED))
        throw new IOException("DSS's indication is " + indication + ", not " + PASSED);
    }
  }

  /**
   * Each signature's indication in DSS's simple report (JSON of its JAXB report: a signature's
   * {@code Indication} and {@code SubIndication}), as {@code INDICATION} or {@code
   * INDICATION/SUBINDICATION}.
   */
  static List<String> indications(JsonNode reports) throws IOException {
    JsonNode simple = reports.path("SimpleReport");
    if (simple.isMissingNode()) simple = reports.path("simpleReport");
    if (simple.isMissingNode() || !simple.isObject())
      throw new IOException("DSS's answer carries no simple report");
    List<String> found = new ArrayList<>();
    collect(simple, found);
    return found;
  }

  private static void collect(JsonNode node, List<String> found) {
    if (node.isObject()) {
      JsonNode indication = node.get("Indication");
      if (indication != null && indication.isTextual()) {
        JsonNode sub = node.get("SubIndication");
        found.add(indication.asText() + (sub != null && sub.isTextual() ? "/" + sub.asText() : ""));
        return;
      }
      node.properties().forEach(e -> collect(e.getValue(), found));
    } else if (node.isArray()) {
      node.forEach(n -> collect(n, found));
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
