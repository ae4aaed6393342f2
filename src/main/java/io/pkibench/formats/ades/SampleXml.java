package io.pkibench.formats.ades;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/** The XML message the XAdES workloads sign: an ISO 20022 pacs.008-shaped payment message. */
public final class SampleXml {
  private SampleXml() {}

  /**
   * Credit transfers (pacs.008 shape) repeated until the message is about {@code sizeBytes} long;
   * the same bytes every time.
   */
  public static byte[] generate(int sizeBytes) {
    SplittableRandom random = new SplittableRandom(8);
    StringBuilder xml =
        new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .append(
                "<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08\"><FIToFICstmrCdtTrf>")
            .append(
                "<GrpHdr><MsgId>M00038121202611220000000000001</MsgId><CreDtTm>2026-11-22T03:00:00Z</CreDtTm><NbOfTxs>1</NbOfTxs></GrpHdr>");
    int n = 0;
    while (xml.length() < sizeBytes - 60) {
      n++;
      xml.append("<CdtTrfTxInf><PmtId><EndToEndId>E0003812120261122")
          .append(String.format("%015d", n))
          .append("</EndToEndId></PmtId>")
          .append("<IntrBkSttlmAmt Ccy=\"BRL\">")
          .append(random.nextInt(1_000_000) / 100.0)
          .append("</IntrBkSttlmAmt>")
          .append("<Dbtr><Nm>Pagador ")
          .append(n)
          .append("</Nm></Dbtr><Cdtr><Nm>Recebedor ")
          .append(n)
          .append("</Nm></Cdtr></CdtTrfTxInf>");
    }
    return xml.append("</FIToFICstmrCdtTrf></Document>")
        .toString()
        .getBytes(StandardCharsets.UTF_8);
  }
}
