package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SignatureException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
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

  /**
   * As {@link #check(byte[], byte[], PublicKey)}, the signer being the certificate the signature
   * carries in {@code ds:KeyInfo/ds:X509Data} (the one its {@code xades:SigningCertificateV2} or
   * {@code SigningCertificate} digest names, else the first), which must chain to {@code trust}
   * through the others carried and the bundle (an {@code api} spec's {@code trust:}).
   */
  public static void check(byte[] signedXml, byte[] sentXml, CertificateTrust trust)
      throws Exception {
    Document doc = parse(signedXml);
    List<X509Certificate> carried = new ArrayList<>();
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    NodeList encoded = doc.getElementsByTagNameNS(DSIG_NS, "X509Certificate");
    for (int i = 0; i < encoded.getLength(); i++) {
      byte[] der = Base64.getMimeDecoder().decode(encoded.item(i).getTextContent().strip());
      carried.add((X509Certificate) x509.generateCertificate(new ByteArrayInputStream(der)));
    }
    if (carried.isEmpty())
      throw new SignatureException(
          "the XAdES signature carries no certificate (ds:KeyInfo/ds:X509Data/ds:X509Certificate)"
              + " to chain to the trusted certificates: check it with key: instead");
    X509Certificate signer = namedSigner(doc, carried);
    trust.check(signer, carried, new Date());
    check(signedXml, sentXml, signer.getPublicKey());
  }

  /**
   * The carried certificate that the signed properties' certificate digest names: the signer
   * vouches for its own certificate there, so a certificate swapped into the unsigned KeyInfo is
   * not taken for it. Without such a digest, the first certificate carried (XMLDSig's custom).
   */
  private static X509Certificate namedSigner(Document doc, List<X509Certificate> carried)
      throws Exception {
    NodeList digests = doc.getElementsByTagNameNS(XADES_NS, "CertDigest");
    if (digests.getLength() == 0) return carried.get(0);
    Element digest = (Element) digests.item(0);
    String algorithm =
        ((Element) digest.getElementsByTagNameNS(DSIG_NS, "DigestMethod").item(0))
            .getAttribute("Algorithm");
    byte[] value =
        Base64.getMimeDecoder()
            .decode(
                digest
                    .getElementsByTagNameNS(DSIG_NS, "DigestValue")
                    .item(0)
                    .getTextContent()
                    .strip());
    String jca = DIGESTS.get(algorithm);
    if (jca == null)
      throw new SignatureException(
          "the XAdES signing certificate's digest algorithm " + algorithm + " is not known here");
    for (X509Certificate c : carried) {
      if (MessageDigest.isEqual(MessageDigest.getInstance(jca).digest(c.getEncoded()), value))
        return c;
    }
    throw new SignatureException(
        "no certificate the XAdES signature carries is the one its signed properties name (by its "
            + jca
            + " digest)");
  }

  private static final Map<String, String> DIGESTS =
      Map.of(
          "http://www.w3.org/2000/09/xmldsig#sha1", "SHA-1",
          "http://www.w3.org/2001/04/xmlenc#sha256", "SHA-256",
          "http://www.w3.org/2001/04/xmldsig-more#sha384", "SHA-384",
          "http://www.w3.org/2001/04/xmlenc#sha512", "SHA-512");

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
