package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.security.PublicKey;
import java.security.SignatureException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.xml.crypto.dsig.CanonicalizationMethod;
import javax.xml.crypto.dsig.Reference;
import javax.xml.crypto.dsig.Transform;
import javax.xml.crypto.dsig.XMLSignature;
import javax.xml.crypto.dsig.XMLSignatureFactory;
import javax.xml.crypto.dsig.dom.DOMValidateContext;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.xml.security.Init;
import org.apache.xml.security.c14n.Canonicalizer;
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
   * key, and a reference that covers {@code sentXml}: a whole-document reference (URI "") whose
   * digested bytes are the document sent, canonicalized as the reference's transforms say. A
   * signature whose references cover only its own SignedProperties, or another document, validates
   * but signs nothing that was sent.
   */
  public static void check(byte[] signedXml, byte[] sentXml, SigningKey key) throws Exception {
    check(signedXml, sentXml, key.publicKey());
  }

  /**
   * As {@link #check(byte[], byte[], SigningKey)} for a service whose key is known only by its
   * public key (an {@code api} spec's {@code key:}, a public key or certificate).
   */
  public static void check(byte[] signedXml, byte[] sentXml, PublicKey key) throws Exception {
    Document doc = parse(signedXml);
    NodeList signatures = doc.getElementsByTagNameNS(DSIG_NS, "Signature");
    if (signatures.getLength() != 1)
      throw new SignatureException("expected one ds:Signature, found " + signatures.getLength());
    // XAdES references its SignedProperties by Id; DOM needs to be told which attribute is an ID.
    NodeList properties = doc.getElementsByTagNameNS(XADES_NS, "SignedProperties");
    for (int i = 0; i < properties.getLength(); i++)
      ((Element) properties.item(i)).setIdAttribute("Id", true);
    DOMValidateContext context = new DOMValidateContext(key, signatures.item(0));
    // keeps each reference's digested bytes, to compare the document's with the document sent
    context.setProperty("javax.xml.crypto.dsig.cacheReference", Boolean.TRUE);
    XMLSignature signature = XMLSignatureFactory.getInstance("DOM").unmarshalXMLSignature(context);
    if (!signature.validate(context))
      throw new SignatureException("the XAdES signature does not validate with the JDK's XMLDSig");
    requireReferenceToSentDocument(signature, sentXml);
  }

  private static void requireReferenceToSentDocument(XMLSignature signature, byte[] sentXml)
      throws Exception {
    List<String> uris = new ArrayList<>();
    Reference whole = null;
    for (Object o : signature.getSignedInfo().getReferences()) {
      Reference reference = (Reference) o;
      uris.add(reference.getURI() == null ? "(none)" : "\"" + reference.getURI() + "\"");
      if ("".equals(reference.getURI())) whole = reference;
    }
    if (whole == null)
      throw new SignatureException(
          "no reference of the XAdES signature covers the document sent (a whole-document"
              + " reference, URI \"\"): its references are "
              + uris);
    byte[] digested;
    try (InputStream in = whole.getDigestInputStream()) {
      digested = in.readAllBytes();
    }
    if (!Arrays.equals(digested, canonical(sentXml, canonicalizationOf(whole))))
      throw new SignatureException(
          "the XAdES signature's whole-document reference covers another document than the one"
              + " sent");
  }

  /**
   * The reference's last canonicalization transform, or inclusive C14N 1.0 (XMLDSig's conversion of
   * a node-set to octets).
   */
  private static String canonicalizationOf(Reference reference) {
    String algorithm = CanonicalizationMethod.INCLUSIVE;
    for (Object o : reference.getTransforms()) {
      String uri = ((Transform) o).getAlgorithm();
      if (!uri.equals(Transform.ENVELOPED)) algorithm = uri;
    }
    return algorithm;
  }

  /** The document sent, canonicalized; the enveloped-signature transform changes nothing in it. */
  private static byte[] canonical(byte[] xml, String algorithm) throws Exception {
    Init.init();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Canonicalizer.getInstance(algorithm).canonicalizeSubtree(parse(xml), out);
    return out.toByteArray();
  }

  private static Document parse(byte[] xml) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
  }
}
