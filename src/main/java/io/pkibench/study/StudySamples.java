package io.pkibench.study;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.files.OutputFiles;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.TimeStampAuthority;
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
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.tsp.TimeStampRequestGenerator;

/**
 * One artifact per transaction type ({@code --save-samples DIR}), made by the same two-phase code
 * the service runs, with the certificates an outsider needs and, per file, the independent check
 * that verifies it (see {@link SampleScripts}).
 */
public final class StudySamples {
  private StudySamples() {}

  public static List<Sample> write(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    Files.createDirectories(dir);
    TimeStampAuthority tsa = new TimeStampAuthority(keys.key("tsa"), clock);
    TwoPhaseSigner signer = new TwoPhaseSigner(tsa, clock);
    var key = keys.key("signer-rsa2048-1");
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
    byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 137 * 1024);
    OutputFiles.replace(dir.resolve("document.bin"), content);
    for (var f : List.of(TwoPhaseSigner.Format.CADES, TwoPhaseSigner.Format.CADES_T)) {
      String file = f == TwoPhaseSigner.Format.CADES ? "cades.p7s" : "cades-t.p7s";
      OutputFiles.replace(
          dir.resolve(file),
          signer.sign(
              f, new InMemoryDocument(content, "document.bin"), key, SignaturePackaging.DETACHED));
      samples.add(
          new Sample(
              file,
              (f == TwoPhaseSigner.Format.CADES ? "CAdES-B-B" : "CAdES-B-T")
                  + " detached signature of document.bin",
              "openssl cms -verify -binary -inform DER -in "
                  + file
                  + " -content document.bin -CAfile root-ca.pem -certfile intermediates.pem -out /dev/null",
              List.of("openssl")));
    }
    byte[] pdf = AdesChecks.sampleDocument(TwoPhaseSigner.Format.PADES, 0);
    for (var f : List.of(TwoPhaseSigner.Format.PADES, TwoPhaseSigner.Format.PADES_T)) {
      String file = f == TwoPhaseSigner.Format.PADES ? "pades.pdf" : "pades-t.pdf";
      OutputFiles.replace(
          dir.resolve(file), signer.sign(f, new InMemoryDocument(pdf, "sample.pdf"), key, null));
      samples.add(
          new Sample(
              file,
              f == TwoPhaseSigner.Format.PADES ? "PAdES-B-B signed PDF" : "PAdES-B-T signed PDF",
              pdfsigCheck(file),
              List.of("pdfsig")));
    }
    byte[] xml = AdesChecks.sampleDocument(TwoPhaseSigner.Format.XADES, 4096);
    OutputFiles.replace(
        dir.resolve("xades.xml"),
        signer.sign(
            TwoPhaseSigner.Format.XADES, new InMemoryDocument(xml, "message.xml"), key, null));
    // xmlsec1 must be told which attribute is an ID (XAdES's SignedProperties, in its namespace) to
    // resolve the reference to it.
    samples.add(
        new Sample(
            "xades.xml",
            "XAdES-B-B enveloped signature of an ISO 20022-style message",
            "xmlsec1 --verify --trusted-pem root-ca.pem --untrusted-pem intermediates.pem --id-attr:Id "
                + XadesVerifier.XADES_NS
                + ":SignedProperties xades.xml",
            List.of("xmlsec1")));
    TimeStampRequestGenerator requests = new TimeStampRequestGenerator();
    requests.setCertReq(true);
    byte[] request =
        requests
            .generate(
                NISTObjectIdentifiers.id_sha256,
                MessageDigest.getInstance("SHA-256").digest(content),
                BigInteger.ONE)
            .getEncoded();
    OutputFiles.replace(dir.resolve("timestamp.tsq"), request);
    OutputFiles.replace(dir.resolve("timestamp.tsr"), tsa.respond(request));
    samples.add(
        new Sample(
            "timestamp.tsr",
            "RFC 3161 time-stamp reply to timestamp.tsq (the SHA-256 of document.bin)",
            "openssl ts -verify -in timestamp.tsr -queryfile timestamp.tsq -CAfile root-ca.pem -untrusted tsa-untrusted.pem",
            List.of("openssl")));
    return samples;
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
