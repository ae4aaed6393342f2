package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.keys.SigningKey;
import io.pkibench.testing.TestKeys;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.security.SignatureException;
import java.time.InstantSource;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.SignerInformationStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Node;

/**
 * The PAdES and XAdES checks hold a document to exactly one signature: a second one (which of the
 * two would "the signature" be?) or none at all is refused, saying how many were found. The
 * signatures are DSS's, with a second SignerInfo or ds:Signature planted, or the signature taken
 * out.
 */
class SignatureCountTest {
  @TempDir static Path tmp;
  static SigningKey signer;
  static byte[] pades;
  static byte[] xades;

  @BeforeAll
  static void sign() throws Exception {
    TestKeys fixture = TestKeys.in(tmp);
    signer = fixture.keys.key("signer-rsa2048-1");
    TwoPhaseSigner signing = new TwoPhaseSigner(null, InstantSource.system());
    pades =
        signing.sign(
            TwoPhaseSigner.Format.PADES,
            new InMemoryDocument(SamplePdf.generate(), "sample.pdf"),
            signer,
            null);
    xades =
        signing.sign(
            TwoPhaseSigner.Format.XADES,
            new InMemoryDocument(
                AdesChecks.sampleDocument(TwoPhaseSigner.Format.XADES, 2048), "doc.xml"),
            signer,
            null);
  }

  @Test
  void check_padesAndXadesAsSigned_accepted() throws Exception {
    PadesVerifier.check(pades, SamplePdf.generate(), signer);
    XadesVerifier.check(
        xades, AdesChecks.sampleDocument(TwoPhaseSigner.Format.XADES, 2048), signer);
  }

  @Test
  void padesCheck_cmsWithTwoSignerInfos_refusedCountingThem() throws Exception {
    CMSSignedData cms = new CMSSignedData(SignatureTimeStampCheckTest.cmsOf(pades));
    SignerInformation one = SignatureTimeStampCheckTest.signerOf(cms);
    byte[] twice =
        CMSSignedData.replaceSigners(cms, new SignerInformationStore(List.of(one, one)))
            .getEncoded();
    byte[] planted = SignatureTimeStampCheckTest.withCms(pades, twice);
    var e =
        assertThrows(
            SignatureException.class,
            () -> PadesVerifier.check(planted, SamplePdf.generate(), signer));
    assertEquals("expected one SignerInfo in the PDF's CMS, found 2", e.getMessage());
  }

  @Test
  void padesCheck_pdfWithoutSignature_refused() throws Exception {
    var e =
        assertThrows(
            SignatureException.class,
            () -> PadesVerifier.check(SamplePdf.generate(), SamplePdf.generate(), signer));
    assertEquals("the signed PDF has no signature dictionary", e.getMessage());
  }

  @Test
  void xadesCheck_twoSignaturesOrNone_refusedCountingThem() throws Exception {
    Document doc = parse(xades);
    Node signature = doc.getElementsByTagNameNS(XadesVerifier.DSIG_NS, "Signature").item(0);
    signature.getParentNode().appendChild(signature.cloneNode(true));
    byte[] two = serialize(doc);
    var e =
        assertThrows(SignatureException.class, () -> XadesVerifier.check(two, sentXml(), signer));
    assertEquals("expected one ds:Signature, found 2", e.getMessage());

    Document none = parse(xades);
    Node only = none.getElementsByTagNameNS(XadesVerifier.DSIG_NS, "Signature").item(0);
    only.getParentNode().removeChild(only);
    byte[] unsigned = serialize(none);
    e =
        assertThrows(
            SignatureException.class, () -> XadesVerifier.check(unsigned, sentXml(), signer));
    assertEquals("expected one ds:Signature, found 0", e.getMessage());
  }

  static byte[] sentXml() throws Exception {
    return AdesChecks.sampleDocument(TwoPhaseSigner.Format.XADES, 2048);
  }

  static Document parse(byte[] xml) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
  }

  static byte[] serialize(Document doc) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TransformerFactory.newInstance()
        .newTransformer()
        .transform(new DOMSource(doc), new StreamResult(out));
    return out.toByteArray();
  }
}
