package io.pkibench.workload.ades;

import io.pkibench.keys.SigningKey;
import io.pkibench.workload.ParamSpec;
import io.pkibench.workload.Params;
import io.pkibench.workload.Workload;
import io.pkibench.workload.WorkloadContext;
import io.pkibench.workload.WorkloadFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.SignatureException;
import java.util.List;
import java.util.SplittableRandom;
import javax.xml.crypto.dsig.XMLSignature;
import javax.xml.crypto.dsig.XMLSignatureFactory;
import javax.xml.crypto.dsig.dom.DOMValidateContext;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code xades}: XAdES-B-B enveloped in a generated ISO 20022-style payment message of about
 * {@code size} bytes, two-phase through DSS. With {@code --verify}, the JDK's own XML signature API
 * checks every reference and the signature value, independently of DSS.
 */
public final class XadesWorkload {
  static final String DSIG_NS = XMLSignature.XMLNS;
  public static final String XADES_NS = "http://uri.etsi.org/01903/v1.3.2#";

  private XadesWorkload() {}

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "xades";
    }

    @Override
    public String description() {
      return "XAdES-B-B (DSS + Santuario) enveloped in an ISO 20022-style XML message";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free("size", "4k", "approximate bytes of the XML message"),
          Signers.ALG,
          Signers.CERTS);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      return new AdesWorkload(TwoPhaseSigner.Format.XADES, Signers.of(context, params), sampleMessage(params.bytes("size")),
          "message.xml", null, null, context.verify() ? (signed, original, key) -> check(signed, key) : null, context.clock());
    }
  }

  /** Credit transfers (pacs.008 shape) repeated until the message is about {@code sizeBytes} long; the same bytes every time. */
  public static byte[] sampleMessage(int sizeBytes) {
    SplittableRandom random = new SplittableRandom(8);
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08\"><FIToFICstmrCdtTrf>")
        .append("<GrpHdr><MsgId>M00038121202611220000000000001</MsgId><CreDtTm>2026-11-22T03:00:00Z</CreDtTm><NbOfTxs>1</NbOfTxs></GrpHdr>");
    int n = 0;
    while (xml.length() < sizeBytes - 60) {
      n++;
      xml.append("<CdtTrfTxInf><PmtId><EndToEndId>E0003812120261122").append(String.format("%015d", n)).append("</EndToEndId></PmtId>")
          .append("<IntrBkSttlmAmt Ccy=\"BRL\">").append(random.nextInt(1_000_000) / 100.0).append("</IntrBkSttlmAmt>")
          .append("<Dbtr><Nm>Pagador ").append(n).append("</Nm></Dbtr><Cdtr><Nm>Recebedor ").append(n).append("</Nm></Cdtr></CdtTrfTxInf>");
    }
    return xml.append("</FIToFICstmrCdtTrf></Document>").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The JDK's XMLDSig core validation (references and signature value) with the signer's public key. */
  static void check(byte[] signedXml, SigningKey key) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(signedXml));
    NodeList signatures = doc.getElementsByTagNameNS(DSIG_NS, "Signature");
    if (signatures.getLength() != 1) throw new SignatureException("expected one ds:Signature, found " + signatures.getLength());
    // XAdES references its SignedProperties by Id; DOM needs to be told which attribute is an ID.
    NodeList properties = doc.getElementsByTagNameNS(XADES_NS, "SignedProperties");
    for (int i = 0; i < properties.getLength(); i++) ((Element) properties.item(i)).setIdAttribute("Id", true);
    DOMValidateContext context = new DOMValidateContext(key.publicKey(), signatures.item(0));
    XMLSignature signature = XMLSignatureFactory.getInstance("DOM").unmarshalXMLSignature(context);
    if (!signature.validate(context)) throw new SignatureException("the XAdES signature does not validate with the JDK's XMLDSig");
  }
}
