package io.pkibench.formats.iso20022;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Pre-generated PIX credit transfers (ISO 20022 pacs.008.001.08 with its head.001.001.01 business
 * application header, in the envelope the SPI carries), each different: ids, amounts, names,
 * participants (ISPB) and PIX keys drawn from a seeded random source, so a run can be repeated. The
 * header's {@code Sgntr} is empty, waiting for the signature.
 */
public final class Pacs008Pool {
  public static final String ENVELOPE_NS = "https://www.bcb.gov.br/pi/pacs.008/1.13";
  public static final String HEADER_NS = "urn:iso:std:iso:20022:tech:xsd:head.001.001.01";
  public static final String DOCUMENT_NS = "urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08";

  /** The SPI's own ISPB, to which every participant sends. */
  static final String SPI_ISPB = "99999004";

  private static final String[] NAMES = {
    "Fulano de Tal",
    "Maria da Silva",
    "João Pereira",
    "Ana Souza",
    "Pedro Álvares",
    "Luíza Conceição"
  };
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);

  private final List<byte[]> messages;

  private Pacs008Pool(List<byte[]> messages) {
    this.messages = List.copyOf(messages);
  }

  /** {@code count} messages from {@code seed}, dated at {@code now}. */
  public static Pacs008Pool generate(int count, long seed, Instant now) {
    SplittableRandom random = new SplittableRandom(seed);
    List<byte[]> list = new ArrayList<>(count);
    for (int i = 0; i < count; i++) list.add(message(random, now).getBytes(StandardCharsets.UTF_8));
    return new Pacs008Pool(list);
  }

  public int size() {
    return messages.size();
  }

  /** The UTF-8 bytes of message {@code i}; shared, never to be written to. */
  public byte[] get(int i) {
    return messages.get(i);
  }

  private static String digits(SplittableRandom r, int n) {
    StringBuilder s = new StringBuilder(n);
    for (int i = 0; i < n; i++) s.append((char) ('0' + r.nextInt(10)));
    return s.toString();
  }

  private static String alnum(SplittableRandom r, int n) {
    String chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder s = new StringBuilder(n);
    for (int i = 0; i < n; i++) s.append(chars.charAt(r.nextInt(chars.length())));
    return s.toString();
  }

  static String message(SplittableRandom r, Instant now) {
    String payer = digits(r, 8), payee = digits(r, 8);
    String created = DateTimeFormatter.ISO_INSTANT.format(now.plusMillis(r.nextInt(60_000)));
    // EndToEndId: E + ISPB + yyyyMMddHHmm + 11 alphanumerics (32 characters, as the SPI manual sets
    // it)
    String endToEnd = "E" + payer + STAMP.format(now) + alnum(r, 11);
    String messageId = "M" + payer + alnum(r, 23);
    String amount = String.format(Locale.ROOT, "%d.%02d", 1 + r.nextInt(50_000), r.nextInt(100));
    String key =
        r.nextBoolean() ? digits(r, 11) : alnum(r, 8).toLowerCase(Locale.ROOT) + "@example.com.br";
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<Envelope xmlns=\""
        + ENVELOPE_NS
        + "\">"
        + "<AppHdr xmlns=\""
        + HEADER_NS
        + "\">"
        + "<Fr><FIId><FinInstnId><Othr><Id>"
        + payer
        + "</Id></Othr></FinInstnId></FIId></Fr>"
        + "<To><FIId><FinInstnId><Othr><Id>"
        + SPI_ISPB
        + "</Id></Othr></FinInstnId></FIId></To>"
        + "<BizMsgIdr>"
        + messageId
        + "</BizMsgIdr>"
        + "<MsgDefIdr>pacs.008.spi.1.13</MsgDefIdr>"
        + "<CreDt>"
        + created
        + "</CreDt>"
        + "<Sgntr/>"
        + "</AppHdr>"
        + "<Document xmlns=\""
        + DOCUMENT_NS
        + "\"><FIToFICstmrCdtTrf>"
        + "<GrpHdr><MsgId>"
        + messageId
        + "</MsgId><CreDtTm>"
        + created
        + "</CreDtTm><NbOfTxs>1</NbOfTxs>"
        + "<SttlmInf><SttlmMtd>CLRG</SttlmMtd></SttlmInf><PmtTpInf><InstrPrty>HIGH</InstrPrty><SvcLvl><Prtry>PAGPRI</Prtry></SvcLvl></PmtTpInf></GrpHdr>"
        + "<CdtTrfTxInf><PmtId><EndToEndId>"
        + endToEnd
        + "</EndToEndId></PmtId>"
        + "<IntrBkSttlmAmt Ccy=\"BRL\">"
        + amount
        + "</IntrBkSttlmAmt><AccptncDtTm>"
        + created
        + "</AccptncDtTm><ChrgBr>SLEV</ChrgBr>"
        + "<MndtRltdInf><Tp><LclInstrm><Prtry>DICT</Prtry></LclInstrm></Tp></MndtRltdInf>"
        + "<Dbtr><Nm>"
        + NAMES[r.nextInt(NAMES.length)]
        + "</Nm><Id><PrvtId><Othr><Id>"
        + digits(r, 11)
        + "</Id></Othr></PrvtId></Id></Dbtr>"
        + "<DbtrAcct><Id><Othr><Id>"
        + digits(r, 8)
        + "</Id><Issr>"
        + digits(r, 4)
        + "</Issr></Othr></Id><Tp><Cd>CACC</Cd></Tp></DbtrAcct>"
        + "<DbtrAgt><FinInstnId><ClrSysMmbId><MmbId>"
        + payer
        + "</MmbId></ClrSysMmbId></FinInstnId></DbtrAgt>"
        + "<CdtrAgt><FinInstnId><ClrSysMmbId><MmbId>"
        + payee
        + "</MmbId></ClrSysMmbId></FinInstnId></CdtrAgt>"
        + "<Cdtr><Id><PrvtId><Othr><Id>"
        + digits(r, 11)
        + "</Id></Othr></PrvtId></Id></Cdtr>"
        + "<CdtrAcct><Id><Othr><Id>"
        + digits(r, 10)
        + "</Id><Issr>"
        + digits(r, 4)
        + "</Issr></Othr></Id><Tp><Cd>TRAN</Cd></Tp>"
        + "<Prxy><Id>"
        + key
        + "</Id></Prxy></CdtrAcct>"
        + "<Purp><Cd>IPAY</Cd></Purp><RmtInf><Ustrd>pagamento "
        + alnum(r, 12)
        + "</Ustrd></RmtInf>"
        + "</CdtTrfTxInf></FIToFICstmrCdtTrf></Document>"
        + "</Envelope>\n";
  }
}
