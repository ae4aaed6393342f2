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
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.security.SignatureException;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.xml.crypto.dsig.XMLSignature;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.apache.xml.security.Init;
import org.apache.xml.security.c14n.Canonicalizer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

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
  void check_onlyReferenceIsTheSignedProperties_refused() throws Exception {
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    byte[] message = SampleXml.generate(4096);
    byte[] signed =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.XADES,
                new InMemoryDocument(message, "message.xml"),
                key,
                null);
    AdesChecks.check(TwoPhaseSigner.Format.XADES, signed, message, key, null);

    byte[] propertiesOnly = withoutDocumentReferenceResigned(signed, key);
    // the planted signature is valid XMLDSig: xmlsec1 accepts it, it just signs nothing sent
    String xmlsec = xmlsec1(Files.write(tmp.resolve("properties-only.xml"), propertiesOnly));
    assertTrue(xmlsec.startsWith("0:"), xmlsec);
    var e =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(TwoPhaseSigner.Format.XADES, propertiesOnly, message, key, null));
    assertTrue(
        e.getMessage()
            .startsWith(
                "no reference of the XAdES signature covers the document sent (a whole-document"
                    + " reference, URI \"\"): its references are [\"#"),
        e.getMessage());
  }

  @Test
  void check_referenceCoversAnotherDocument_refused() throws Exception {
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    byte[] sent = SampleXml.generate(4096);
    byte[] another = SampleXml.generate(8192);
    byte[] signedAnother =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.XADES, new InMemoryDocument(another, "other.xml"), key, null);
    AdesChecks.check(TwoPhaseSigner.Format.XADES, signedAnother, another, key, null);
    var e =
        assertThrows(
            SignatureException.class,
            () -> AdesChecks.check(TwoPhaseSigner.Format.XADES, signedAnother, sent, key, null));
    assertEquals(
        "the XAdES signature's whole-document reference covers another document than the one"
            + " sent",
        e.getMessage());
  }

  /**
   * The signature with its whole-document reference taken out of SignedInfo and SignedInfo signed
   * again by {@code key}: a valid signature whose only reference is its SignedProperties.
   */
  static byte[] withoutDocumentReferenceResigned(byte[] signedXml, SigningKey key)
      throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    Document doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(signedXml));
    Element signedInfo =
        (Element) doc.getElementsByTagNameNS(XMLSignature.XMLNS, "SignedInfo").item(0);
    NodeList references = signedInfo.getElementsByTagNameNS(XMLSignature.XMLNS, "Reference");
    for (int i = references.getLength() - 1; i >= 0; i--) {
      Element reference = (Element) references.item(i);
      if (reference.getAttribute("URI").isEmpty()) signedInfo.removeChild(reference);
    }
    assertEquals(1, references.getLength(), "the SignedProperties reference is left");
    String c14n =
        ((Element)
                signedInfo
                    .getElementsByTagNameNS(XMLSignature.XMLNS, "CanonicalizationMethod")
                    .item(0))
            .getAttribute("Algorithm");
    String method =
        ((Element) signedInfo.getElementsByTagNameNS(XMLSignature.XMLNS, "SignatureMethod").item(0))
            .getAttribute("Algorithm");
    assertEquals("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", method);
    Init.init();
    ByteArrayOutputStream canonical = new ByteArrayOutputStream();
    Canonicalizer.getInstance(c14n).canonicalizeSubtree(signedInfo, canonical);
    Signature rsa = Signature.getInstance("SHA256withRSA");
    rsa.initSign(key.privateKey());
    rsa.update(canonical.toByteArray());
    doc.getElementsByTagNameNS(XMLSignature.XMLNS, "SignatureValue")
        .item(0)
        .setTextContent(Base64.getEncoder().encodeToString(rsa.sign()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TransformerFactory.newInstance()
        .newTransformer()
        .transform(new DOMSource(doc), new StreamResult(out));
    return out.toByteArray();
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
