package io.pkibench.workload.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.SampleXml;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.formats.ades.XadesVerifier;
import io.pkibench.keys.SigningKey;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** XAdES made through DSS with our keys, checked by the JDK in the workload and by xmlsec1 here. */
class XadesWorkloadTest {
  @TempDir static Path tmp;
  static TestKeys fixture;

  @BeforeAll
  static void setUp() {
    fixture = TestKeys.in(tmp);
  }

  static Workload workload(Map<String, String> params) throws Exception {
    return fixture.workload(new XadesWorkload.Factory(), params);
  }

  @Test
  void run_bothKeyTypes_everyOperationSucceeds() throws Exception {
    for (String alg : new String[] {"rsa2048", "ecdsa-p256"}) {
      try (Workload w = workload(Map.of("alg", alg, "certs", "2", "size", "8k"))) {
        MeasuredRun.of("xades " + alg, w).assertEverySucceeded();
      }
    }
  }

  @Test
  void run_signatureValueFlippedByTheProvider_everyOperationCountedFailed() throws Exception {
    var factory = new XadesWorkload.Factory();
    try (Workload w =
        factory.create(
            new WorkloadContext(
                FaultyKeys.flippingEveryOutput(fixture.keys), true, () -> fixture.pki),
            Params.resolve("xades", factory.params(), Map.of("size", "8k")))) {
      MeasuredRun.of("xades with flipped signatures", w)
          .assertEveryFailedWith("the XAdES signature does not validate with the JDK's XMLDSig");
    }
  }

  @Test
  void check_flippedSignatureValueChangedAmountOrAnotherCasCertificate_rejected() throws Exception {
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    TwoPhaseSigner signer = new TwoPhaseSigner(null, java.time.InstantSource.system());
    byte[] message = SampleXml.generate(4096);
    byte[] signed =
        signer.sign(
            TwoPhaseSigner.Format.XADES, new InMemoryDocument(message, "message.xml"), key, null);
    AdesChecks.check(
        TwoPhaseSigner.Format.XADES,
        signed,
        message,
        key,
        fixture.pki.certificate("root-ca")); // the untouched signature passes

    SigningKey flipping = FaultyKeys.flippingEveryOutput(fixture.keys).key("signer-rsa2048-1");
    byte[] flippedValue =
        signer.sign(
            TwoPhaseSigner.Format.XADES,
            new InMemoryDocument(message, "message.xml"),
            flipping,
            null);
    var e =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.XADES,
                    flippedValue,
                    message,
                    key,
                    fixture.pki.certificate("root-ca")));
    assertEquals("the XAdES signature does not validate with the JDK's XMLDSig", e.getMessage());

    String text = new String(signed, StandardCharsets.UTF_8);
    int amount =
        text.indexOf("<IntrBkSttlmAmt Ccy=\"BRL\">") + "<IntrBkSttlmAmt Ccy=\"BRL\">".length();
    char digit = text.charAt(amount);
    byte[] tampered =
        (text.substring(0, amount)
                + (digit == '9' ? '8' : (char) (digit + 1))
                + text.substring(amount + 1))
            .getBytes(StandardCharsets.UTF_8);
    var amountChanged =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.XADES,
                    tampered,
                    message,
                    key,
                    fixture.pki.certificate("root-ca")));
    assertEquals(
        "the XAdES signature does not validate with the JDK's XMLDSig", amountChanged.getMessage());

    SigningKey anotherCas =
        fixture.keys.key(
            "signer-rsa2048-2"); // intermediate-b's; signer-rsa2048-1 is intermediate-a's
    var foreign =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.XADES,
                    signed,
                    message,
                    anotherCas,
                    fixture.pki.certificate("root-ca")));
    assertEquals(
        "the XAdES signature does not validate with the JDK's XMLDSig", foreign.getMessage());
  }

  @Test
  void signedXml_xmlsec1VerifiesAndATamperedAmountFails() throws Exception {
    byte[] signed =
        new TwoPhaseSigner(null, java.time.InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.XADES,
                new InMemoryDocument(SampleXml.generate(4096), "message.xml"),
                fixture.keys.key("signer-rsa2048-1"),
                null);
    Path file = Files.write(tmp.resolve("xades.xml"), signed);
    String ok = xmlsec1(file);
    assertTrue(ok.startsWith("0:") && ok.contains("OK"), ok);

    String text = new String(signed, StandardCharsets.UTF_8);
    int amount =
        text.indexOf("<IntrBkSttlmAmt Ccy=\"BRL\">") + "<IntrBkSttlmAmt Ccy=\"BRL\">".length();
    char digit = text.charAt(amount);
    String tampered =
        text.substring(0, amount)
            + (digit == '9' ? '8' : (char) (digit + 1))
            + text.substring(amount + 1);
    String bad = xmlsec1(Files.writeString(tmp.resolve("tampered.xml"), tampered));
    assertTrue(!bad.startsWith("0:"), "a changed amount must fail: " + bad);
  }

  static String xmlsec1(Path file) throws Exception {
    Process p =
        new ProcessBuilder(
                List.of(
                    "xmlsec1",
                    "--verify",
                    "--trusted-pem",
                    fixture.pki.certificatePem("root-ca").toString(),
                    "--untrusted-pem",
                    fixture.pki.certificatePem("intermediate-a").toString(),
                    "--untrusted-pem",
                    fixture.pki.certificatePem("intermediate-b").toString(),
                    "--id-attr:Id",
                    XadesVerifier.XADES_NS + ":SignedProperties",
                    file.toString()))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    return p.waitFor() + ":" + out;
  }
}
