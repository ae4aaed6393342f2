package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.io.ByteArrayInputStream;
import java.security.SignatureException;
import javax.xml.crypto.dsig.XMLSignature;
import javax.xml.crypto.dsig.XMLSignatureFactory;
import javax.xml.crypto.dsig.dom.DOMValidateContext;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The independent check of a XAdES signature: the JDK's XMLDSig, not DSS, which made it. */
public final class XadesVerifier {
  static final String DSIG_NS = XMLSignature.XMLNS;
  public static final String XADES_NS = "http://uri.etsi.org/01903/v1.3.2#";

  private XadesVerifier() {}

  /**
   * The JDK's XMLDSig core validation (references and signature value) with the signer's public
   * key.
   */
  public static void check(byte[] signedXml, SigningKey key) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(signedXml));
    NodeList signatures = doc.getElementsByTagNameNS(DSIG_NS, "Signature");
    if (signatures.getLength() != 1)
      throw new SignatureException("expected one ds:Signature, found " + signatures.getLength());
    // XAdES references its SignedProperties by Id; DOM needs to be told which attribute is an ID.
    NodeList properties = doc.getElementsByTagNameNS(XADES_NS, "SignedProperties");
    for (int i = 0; i < properties.getLength(); i++)
      ((Element) properties.item(i)).setIdAttribute("Id", true);
    DOMValidateContext context = new DOMValidateContext(key.publicKey(), signatures.item(0));
    XMLSignature signature = XMLSignatureFactory.getInstance("DOM").unmarshalXMLSignature(context);
    if (!signature.validate(context))
      throw new SignatureException("the XAdES signature does not validate with the JDK's XMLDSig");
  }
}
