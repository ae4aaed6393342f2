package io.pkibench.workload.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.iso20022.Pacs008Pool;
import io.pkibench.formats.iso20022.SpiSignature;
import io.pkibench.keys.SigningKey;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.xml.crypto.Data;
import javax.xml.crypto.OctetStreamData;
import javax.xml.crypto.URIDereferencer;
import javax.xml.crypto.dsig.Reference;
import javax.xml.crypto.dsig.XMLSignature;
import javax.xml.crypto.dsig.XMLSignatureFactory;
import javax.xml.crypto.dsig.dom.DOMValidateContext;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The SPI signature checked by code we did not write: the JDK's JSR-105 (javax.xml.crypto), and
 * tampering of each covered part.
 */
class SpiSignatureTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static byte[] signedMessage(SigningKey key, int index) throws Exception {
    Pacs008Pool pool = Pacs008Pool.generate(5, 42, Instant.parse("2026-11-23T10:00:00Z"));
    Document message = SpiSignature.parse(pool.get(index));
    new SpiSignature(key).sign(message);
    return SpiSignature.write(message);
  }

  /**
   * The JDK's own XMLDSig (JSR-105): the header as its own document, so URI="" is the AppHdr, and a
   * dereferencer for the reference without a URI that hands over the Document element as it was
   * sent (serialised; the JDK canonicalises it itself).
   */
  static boolean jsr105Verifies(byte[] signed, java.security.PublicKey key) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    Document message = f.newDocumentBuilder().parse(new ByteArrayInputStream(signed));
    Element envelope = message.getDocumentElement();
    Element header =
        (Element) envelope.getElementsByTagNameNS(Pacs008Pool.HEADER_NS, "AppHdr").item(0);
    Element document =
        (Element) envelope.getElementsByTagNameNS(Pacs008Pool.DOCUMENT_NS, "Document").item(0);
    Document headerDoc = f.newDocumentBuilder().newDocument();
    headerDoc.appendChild(headerDoc.importNode(header, true));
    Element signature =
        (Element) headerDoc.getElementsByTagNameNS(XMLSignature.XMLNS, "Signature").item(0);
    Element keyInfo =
        (Element) signature.getElementsByTagNameNS(XMLSignature.XMLNS, "KeyInfo").item(0);
    keyInfo.setIdAttributeNS(null, "Id", true);

    StringWriter documentXml = new StringWriter();
    TransformerFactory.newInstance()
        .newTransformer()
        .transform(new DOMSource(document), new StreamResult(documentXml));
    byte[] documentBytes = documentXml.toString().getBytes(StandardCharsets.UTF_8);

    XMLSignatureFactory factory = XMLSignatureFactory.getInstance("DOM");
    DOMValidateContext context = new DOMValidateContext(key, signature);
    URIDereferencer standard = factory.getURIDereferencer();
    context.setURIDereferencer(
        (uriReference, ctx) -> {
          if (uriReference.getURI() == null)
            return (Data) new OctetStreamData(new ByteArrayInputStream(documentBytes));
          return standard.dereference(uriReference, ctx);
        });
    XMLSignature parsed = factory.unmarshalXMLSignature(context);
    List<?> references = parsed.getSignedInfo().getReferences();
    assertEquals(3, references.size());
    assertEquals("#" + SpiSignature.KEY_INFO_ID, ((Reference) references.get(0)).getURI());
    assertEquals("", ((Reference) references.get(1)).getURI());
    assertEquals(
        null, ((Reference) references.get(2)).getURI(), "the Document's reference has no URI");
    assertEquals(
        "http://www.w3.org/2001/10/xml-exc-c14n#",
        parsed.getSignedInfo().getCanonicalizationMethod().getAlgorithm());
    assertEquals(
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
        parsed.getSignedInfo().getSignatureMethod().getAlgorithm());
    return parsed.validate(context);
  }

  @Test
  void signedMessage_verifiesWithJsr105_andWithSantuario_andSitsInAppHdrSgntr() throws Exception {
    SigningKey key = fixture.keys.key(SpiWorkloads.SIGNER);
    byte[] signed = signedMessage(key, 0);
    String xml = new String(signed, StandardCharsets.UTF_8);
    assertTrue(
        xml.contains("<Sgntr><ds:Signature") || xml.matches("(?s).*<Sgntr>\\s*<ds:Signature.*"),
        xml);
    assertTrue(
        xml.contains("X509IssuerSerial")
            && xml.contains("<ds:X509SerialNumber>" + key.certificate().getSerialNumber()),
        xml);
    assertTrue(
        jsr105Verifies(signed, key.publicKey()),
        "JSR-105 validates all three references and the value");
    SpiSignature.verify(SpiSignature.parse(signed), key.certificate());
  }

  @Test
  void oneByteChanged_inTheDocument_theHeader_orTheKeyInfo_fails() throws Exception {
    SigningKey key = fixture.keys.key(SpiWorkloads.SIGNER);
    String xml = new String(signedMessage(key, 1), StandardCharsets.UTF_8);
    // what is changed -> the changed message, and the refusal ours must give
    Map<String, String[]> tampers =
        Map.of(
            "Document",
                new String[] {
                  xml.replaceFirst(
                      "<IntrBkSttlmAmt Ccy=\"BRL\">(\\d)", "<IntrBkSttlmAmt Ccy=\"BRL\">9$1"),
                  "the SPI signature does not verify"
                },
            "AppHdr",
                new String[] {
                  xml.replaceFirst("<MsgDefIdr>pacs.008.spi.1.13", "<MsgDefIdr>pacs.008.spi.1.14"),
                  "the SPI signature does not verify"
                },
            "KeyInfo",
                new String[] {
                  xml.replaceFirst("<ds:X509SerialNumber>(\\d)", "<ds:X509SerialNumber>1$1"),
                  "the KeyInfo does not name the signer's certificate (issuer and serial)"
                });
    for (var t : tampers.entrySet()) {
      assertFalse(t.getValue()[0].equals(xml), t.getKey() + ": the tamper changed something");
      byte[] tampered = t.getValue()[0].getBytes(StandardCharsets.UTF_8);
      assertFalse(
          jsr105Verifies(tampered, key.publicKey()), t.getKey() + " changed: JSR-105 must refuse");
      var refused =
          assertThrows(
              java.io.IOException.class,
              () -> SpiSignature.verify(SpiSignature.parse(tampered), key.certificate()),
              t.getKey() + " changed: ours must refuse");
      assertEquals(t.getValue()[1], refused.getMessage(), t.getKey() + " changed");
    }
  }

  /**
   * A signer whose every signature comes out flipped: spi-sign's own check and spi-verify over a
   * pool signed so each count every operation failed with the check's message, and the run goes on;
   * a signer presented with another key's certificate (one of the other intermediate CA) fails the
   * same way.
   */
  @Test
  void run_signaturesFlippedOrAnotherKeysCertificate_everyOperationCountedFailed()
      throws Exception {
    var faults =
        Map.of(
            "flipped signatures",
            FaultyKeys.flippingEveryOutput(fixture.keys),
            "the certificate of another key",
            FaultyKeys.swappingCertificates(fixture.keys, SpiWorkloads.SIGNER, "signer-rsa2048-2"));
    for (var fault : faults.entrySet()) {
      for (var factory :
          List.<WorkloadFactory>of(new SpiWorkloads.Sign(), new SpiWorkloads.Verify())) {
        try (Workload w =
            factory.create(
                new WorkloadContext(fault.getValue(), true, () -> fixture.pki),
                Params.resolve(factory.name(), factory.params(), Map.of("pool", "5")))) {
          MeasuredRun.of(
                  factory.name() + " with " + fault.getKey(), w, java.time.Duration.ofSeconds(1))
              .assertEveryFailedWith("the SPI signature does not verify");
        }
      }
    }
  }

  @Test
  void workloads_signVerifyAndDraw_withoutFailures() throws Exception {
    for (var factory :
        List.of(new SpiWorkloads.Sign(), new SpiWorkloads.Verify(), new SpiWorkloads.Random())) {
      try (var workload = fixture.workload(factory, Map.of("pool", "20"))) {
        var op = workload.newOperation(0);
        for (int i = 0; i < 25; i++) op.execute();
      }
    }
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> fixture.workload(new SpiWorkloads.Sign(), Map.of("pool", "0")));
    assertTrue(e.getMessage().contains("-p pool=0"), e.getMessage());
  }

  @Test
  void aMessageWithADoctype_isRefusedWithoutPrinting() {
    byte[] evil =
        "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><Envelope>&e;</Envelope>"
            .getBytes();
    var e = assertThrows(java.io.IOException.class, () -> SpiSignature.parse(evil));
    assertTrue(e.getMessage().contains("not a well-formed message"), e.getMessage());
  }

  /** The messages are what they claim: distinct ids, the pacs.008 and head.001 namespaces. */
  @Test
  void pool_messagesAreDistinctAndRepeatable() throws Exception {
    Pacs008Pool a = Pacs008Pool.generate(50, 7, Instant.EPOCH),
        b = Pacs008Pool.generate(50, 7, Instant.EPOCH);
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (int i = 0; i < a.size(); i++) {
      assertEquals(
          new String(a.get(i)), new String(b.get(i)), "the same seed gives the same messages");
      Document d = SpiSignature.parse(a.get(i));
      Node e2e = d.getElementsByTagNameNS(Pacs008Pool.DOCUMENT_NS, "EndToEndId").item(0);
      assertEquals(32, e2e.getTextContent().length(), e2e.getTextContent());
      ids.add(e2e.getTextContent());
    }
    assertEquals(50, ids.size());
  }

  /** xmlsec1's statuses by reference URI ("NULL" for none), from its --store-references report. */
  static Map<String, String> xmlsec1References(Path headerFile, Path certificate) throws Exception {
    Process p =
        new ProcessBuilder(
                "xmlsec1",
                "--verify",
                "--pubkey-cert-pem",
                certificate.toString(),
                "--id-attr:Id",
                "KeyInfo",
                "--store-references",
                "--print-debug",
                headerFile.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    Map<String, String> statuses = new java.util.TreeMap<>();
    var m =
        java.util.regex.Pattern.compile(
                "= REFERENCE VERIFICATION CONTEXT\\s*== Status: (\\w+)\\s*(?:== URI: (\\S+))?")
            .matcher(out);
    while (m.find())
      statuses.put(
          m.group(2) == null ? "NULL" : m.group(2).replace("\"", ""),
          m.group(1)); // no URI line: no URI
    assertTrue(
        !statuses.isEmpty(), "xmlsec1 (apt-get install xmlsec1) reported no reference:\n" + out);
    return statuses; // it stops at the first reference that fails
  }

  /**
   * xmlsec1 as far as it can: it resolves the KeyInfo and the empty-URI (header) references and
   * verifies both; a reference without a URI it cannot resolve as the application does (it takes
   * the whole header), so the Document's reference is the one it must report as failed, and only
   * that one.
   */
  @Test
  void xmlsec1_verifiesTheKeyInfoAndHeaderReferences_andCannotResolveTheOneWithoutUri()
      throws Exception {
    SigningKey key = fixture.keys.key(SpiWorkloads.SIGNER);
    String xml = new String(signedMessage(key, 2), StandardCharsets.UTF_8);
    Path header = dir.resolve("header.xml");
    Files.writeString(
        header,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
            + xml.substring(xml.indexOf("<AppHdr"), xml.indexOf("</AppHdr>") + 9));
    Path cert = fixture.pki.certificatePem(SpiWorkloads.SIGNER);
    assertEquals(
        Map.of("#key-info", "succeeded", "", "succeeded", "NULL", "invalid"),
        xmlsec1References(header, cert));

    String tampered =
        xml.replaceFirst("<MsgDefIdr>pacs.008.spi.1.13", "<MsgDefIdr>pacs.008.spi.1.14");
    Files.writeString(
        header,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
            + tampered.substring(tampered.indexOf("<AppHdr"), tampered.indexOf("</AppHdr>") + 9));
    assertEquals(
        "invalid",
        xmlsec1References(header, cert).get(""),
        "a changed header fails in xmlsec1 too");
  }
}
