package io.pkibench.formats.iso20022;

import io.pkibench.keys.SigningKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.cert.X509Certificate;
import javax.security.auth.x500.X500Principal;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerConfigurationException;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.apache.xml.security.Init;
import org.apache.xml.security.algorithms.MessageDigestAlgorithm;
import org.apache.xml.security.c14n.Canonicalizer;
import org.apache.xml.security.exceptions.XMLSecurityException;
import org.apache.xml.security.keys.content.X509Data;
import org.apache.xml.security.keys.content.x509.XMLX509IssuerSerial;
import org.apache.xml.security.signature.XMLSignature;
import org.apache.xml.security.signature.XMLSignatureInput;
import org.apache.xml.security.transforms.Transforms;
import org.apache.xml.security.utils.Constants;
import org.apache.xml.security.utils.resolver.ResourceResolverContext;
import org.apache.xml.security.utils.resolver.ResourceResolverException;
import org.apache.xml.security.utils.resolver.ResourceResolverSpi;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * The SPI message signature (ISO 20022 business application header signing, as the PIX SPI uses
 * it), through Apache Santuario: XMLDSig in {@code AppHdr/Sgntr}, exclusive C14N, RSA-SHA256
 * (ECDSA-SHA256 for an EC key), KeyInfo carrying X509IssuerSerial, and three references in this
 * order:
 *
 * <ol>
 *   <li>the KeyInfo, by its Id;
 *   <li>{@code URI=""} with the enveloped-signature transform: the header, signed as a document of
 *       its own, so the empty URI is the AppHdr and not the envelope around it;
 *   <li>a reference with no URI: the {@code Document} (the pacs.008 itself), which only an
 *       application that knows the message can resolve.
 * </ol>
 *
 * One instance is shared by every thread; the parsers it needs are per thread.
 */
public final class SpiSignature {
  public static final String KEY_INFO_ID = "key-info";
  private static final ThreadLocal<DocumentBuilder> BUILDERS =
      ThreadLocal.withInitial(SpiSignature::newBuilder);
  private static final ThreadLocal<Transformer> WRITERS =
      ThreadLocal.withInitial(SpiSignature::newWriter);

  static {
    Init.init();
  }

  private final SigningKey key;
  private final String signatureMethod;

  public SpiSignature(SigningKey key) {
    this.key = key;
    this.signatureMethod =
        switch (key.privateKey().getAlgorithm()) {
          case "RSA" -> XMLSignature.ALGO_ID_SIGNATURE_RSA_SHA256;
          case "EC" -> XMLSignature.ALGO_ID_SIGNATURE_ECDSA_SHA256;
          default ->
              throw new IllegalArgumentException(
                  "the SPI signs with RSA (or EC) keys, not " + key.privateKey().getAlgorithm());
        };
  }

  public X509Certificate certificate() {
    return key.certificate();
  }

  /** A namespace-aware parser that refuses DTDs (a message is data from outside). */
  public static Document parse(byte[] xml) throws IOException {
    try {
      return BUILDERS.get().parse(new ByteArrayInputStream(xml));
    } catch (SAXException e) {
      throw new IOException("not a well-formed message: " + e.getMessage(), e);
    }
  }

  /** Signs {@code message} in place: the signature goes into {@code AppHdr/Sgntr}. */
  public void sign(Document message) throws XMLSecurityException, IOException {
    Parts parts = Parts.of(message);
    Document headerDoc = parts.headerDoc();
    Element sgntr = child(parts.headerCopy(), Pacs008Pool.HEADER_NS, "Sgntr");

    XMLSignature signature =
        new XMLSignature(
            headerDoc,
            "",
            signatureMethod,
            Canonicalizer.ALGO_ID_C14N_EXCL_OMIT_COMMENTS,
            key.provider());
    sgntr.appendChild(signature.getElement());
    signature.getKeyInfo().setId(KEY_INFO_ID);
    X509Data data = new X509Data(headerDoc);
    data.add(new XMLX509IssuerSerial(headerDoc, key.certificate()));
    signature.getKeyInfo().add(data);
    signature.addDocument(
        "#" + KEY_INFO_ID, c14n(headerDoc, false), MessageDigestAlgorithm.ALGO_ID_DIGEST_SHA256);
    signature.addDocument("", c14n(headerDoc, true), MessageDigestAlgorithm.ALGO_ID_DIGEST_SHA256);
    signature.addDocument(
        null, c14n(headerDoc, false), MessageDigestAlgorithm.ALGO_ID_DIGEST_SHA256);
    signature.addResourceResolver(new DocumentReference(parts.document()));
    signature.sign(key.privateKey());
    parts.envelope().replaceChild(message.importNode(parts.headerCopy(), true), parts.header());
  }

  /**
   * A message's envelope, header and Document, and the header copied into a document of its own
   * (where URI="" is the header).
   */
  private record Parts(
      Element envelope, Element header, Element document, Document headerDoc, Element headerCopy) {
    static Parts of(Document message) throws IOException {
      Element envelope = message.getDocumentElement();
      Element header = child(envelope, Pacs008Pool.HEADER_NS, "AppHdr");
      Element document = child(envelope, Pacs008Pool.DOCUMENT_NS, "Document");
      Document headerDoc = BUILDERS.get().newDocument();
      Element copy = (Element) headerDoc.importNode(header, true);
      headerDoc.appendChild(copy);
      return new Parts(envelope, header, document, headerDoc, copy);
    }
  }

  /**
   * Verifies a signed message against {@code signer}: the signature value, the three references,
   * and that the KeyInfo names this certificate. Throws saying what is wrong.
   */
  public static void verify(Document message, X509Certificate signer)
      throws XMLSecurityException, IOException {
    Parts parts = Parts.of(message);
    Element sgntr = child(parts.headerCopy(), Pacs008Pool.HEADER_NS, "Sgntr");
    Element signatureElement = child(sgntr, Constants.SignatureSpecNS, "Signature");
    XMLSignature signature = new XMLSignature(signatureElement, "", true);
    Element keyInfo = child(signatureElement, Constants.SignatureSpecNS, "KeyInfo");
    keyInfo.setIdAttributeNS(null, "Id", true);
    if (signature.getSignedInfo().getLength() != 3)
      throw new IOException(
          "the SPI signature has three references, this one "
              + signature.getSignedInfo().getLength());
    X509Data data = signature.getKeyInfo().itemX509Data(0);
    XMLX509IssuerSerial issuerSerial = data == null ? null : data.itemIssuerSerial(0);
    if (issuerSerial == null
        || !issuerSerial.getSerialNumber().equals(signer.getSerialNumber())
        || !new X500Principal(issuerSerial.getIssuerName())
            .equals(signer.getIssuerX500Principal())) {
      throw new IOException(
          "the KeyInfo does not name the signer's certificate (issuer and serial)");
    }
    signature.addResourceResolver(new DocumentReference(parts.document()));
    if (!signature.checkSignatureValue(signer))
      throw new IOException("the SPI signature does not verify");
  }

  /** The signed message's bytes. */
  public static byte[] write(Document message) throws TransformerException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    WRITERS.get().transform(new DOMSource(message), new StreamResult(out));
    return out.toByteArray();
  }

  private static Transforms c14n(Document doc, boolean enveloped) throws XMLSecurityException {
    Transforms transforms = new Transforms(doc);
    if (enveloped) transforms.addTransform(Transforms.TRANSFORM_ENVELOPED_SIGNATURE);
    transforms.addTransform(Transforms.TRANSFORM_C14N_EXCL_OMIT_COMMENTS);
    return transforms;
  }

  static Element child(Element parent, String namespace, String localName) throws IOException {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e
          && localName.equals(e.getLocalName())
          && namespace.equals(e.getNamespaceURI())) return e;
    }
    throw new IOException("no " + localName + " (" + namespace + ") in " + parent.getLocalName());
  }

  /** Resolves the reference without a URI to the message's Document element. */
  private static final class DocumentReference extends ResourceResolverSpi {
    private final Element document;

    DocumentReference(Element document) {
      this.document = document;
    }

    @Override
    public boolean engineCanResolveURI(ResourceResolverContext context) {
      return context.uriToResolve == null;
    }

    @Override
    public XMLSignatureInput engineResolveURI(ResourceResolverContext context)
        throws ResourceResolverException {
      return new XMLSignatureInput(document);
    }
  }

  private static DocumentBuilder newBuilder() {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setNamespaceAware(true);
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setExpandEntityReferences(false);
      DocumentBuilder builder = factory.newDocumentBuilder();
      // errors are thrown, never printed: the default handler writes "[Fatal Error]" lines at a
      // sender's will
      builder.setErrorHandler(
          new DefaultHandler() {
            @Override
            public void error(SAXParseException e) throws SAXException {
              throw e;
            }

            @Override
            public void fatalError(SAXParseException e) throws SAXException {
              throw e;
            }
          });
      return builder;
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Transformer newWriter() {
    try {
      Transformer t = TransformerFactory.newInstance().newTransformer();
      t.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
      return t;
    } catch (TransformerConfigurationException e) {
      throw new IllegalStateException(e);
    }
  }
}
