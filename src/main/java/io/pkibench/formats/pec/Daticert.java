package io.pkibench.formats.pec;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The certified data of a PEC document, {@code daticert.xml}, with the elements and attributes the
 * technical rules publish (DPCM 2 Nov 2005, annex: {@code daticert.dtd}); {@code daticert.xsd}
 * beside this class is that list as a schema. {@code msgid} is the user's Message-ID with its angle
 * brackets, {@code identificativo} the provider's id for the message (its transport envelope's
 * Message-ID).
 */
public record Daticert(
    String tipo,
    String errore,
    String mittente,
    List<Recipient> destinatari,
    String risposte,
    String oggetto,
    String gestoreEmittente,
    ZonedDateTime data,
    String identificativo,
    String msgid,
    String ricevuta,
    String consegna,
    List<String> ricezione,
    String erroreEsteso) {

  public static final String NO_ERROR = "nessuno";
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("dd/MM/yyyy");
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final DateTimeFormatter ZONE = DateTimeFormatter.ofPattern("xx");

  /**
   * The three read back as one; built once (a pattern parsed per document was a tenth of reading
   * daticert.xml).
   */
  private static final DateTimeFormatter WHEN =
      DateTimeFormatter.ofPattern("dd/MM/yyyy HH:mm:ss xx");

  /**
   * An addressee and whether the index knows its domain as a PEC provider's ({@code certificato})
   * or not ({@code esterno}).
   */
  public record Recipient(String address, boolean certified) {}

  public Daticert {
    Objects.requireNonNull(tipo, "tipo");
    Objects.requireNonNull(mittente, "mittente");
    Objects.requireNonNull(identificativo, "identificativo");
    errore = errore == null ? NO_ERROR : errore;
    destinatari = List.copyOf(destinatari);
    ricezione = ricezione == null ? List.of() : List.copyOf(ricezione);
    risposte = risposte == null ? mittente : risposte;
  }

  public byte[] toXml() {
    StringBuilder x = new StringBuilder(1024);
    x.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n");
    x.append("<postacert tipo=\"")
        .append(escape(tipo))
        .append("\" errore=\"")
        .append(escape(errore))
        .append("\">\r\n");
    x.append("  <intestazione>\r\n");
    element(x, "    ", "mittente", mittente);
    for (Recipient r : destinatari) {
      x.append("    <destinatari tipo=\"")
          .append(r.certified() ? "certificato" : "esterno")
          .append("\">")
          .append(escape(r.address()))
          .append("</destinatari>\r\n");
    }
    element(x, "    ", "risposte", risposte);
    if (oggetto != null) element(x, "    ", "oggetto", oggetto);
    x.append("  </intestazione>\r\n  <dati>\r\n");
    element(x, "    ", "gestore-emittente", gestoreEmittente);
    x.append("    <data zona=\"").append(ZONE.format(data)).append("\">\r\n");
    element(x, "      ", "giorno", DAY.format(data));
    element(x, "      ", "ora", TIME.format(data));
    x.append("    </data>\r\n");
    element(x, "    ", "identificativo", identificativo);
    if (msgid != null) element(x, "    ", "msgid", msgid);
    if (ricevuta != null)
      x.append("    <ricevuta tipo=\"").append(escape(ricevuta)).append("\"/>\r\n");
    if (consegna != null) element(x, "    ", "consegna", consegna);
    for (String r : ricezione) element(x, "    ", "ricezione", r);
    if (erroreEsteso != null) element(x, "    ", "errore-esteso", erroreEsteso);
    x.append("  </dati>\r\n</postacert>\r\n");
    return x.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void element(StringBuilder x, String indent, String name, String text) {
    x.append(indent)
        .append('<')
        .append(name)
        .append('>')
        .append(escape(text))
        .append("</")
        .append(name)
        .append(">\r\n");
  }

  private static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        default -> {
          // characters XML 1.0 cannot carry at all (a header may hold any byte) become U+FFFD
          // rather than a broken document
          boolean allowed =
              c == 0x9
                  || c == 0xA
                  || c == 0xD
                  || (c >= 0x20 && c <= 0xD7FF)
                  || (c >= 0xE000 && c <= 0xFFFD)
                  || Character.isSurrogate(c);
          out.append(allowed ? c : '\uFFFD');
        }
      }
    }
    return out.toString();
  }

  /**
   * One factory for every document, configured once: newFactory() looks its implementation up
   * through the ServiceLoader, scanning the class path's jars, which was a fifth of a receiving
   * provider's CPU per message (its profile). Creating readers from a configured factory is
   * thread-safe (StAX; Woodstox documents it).
   */
  private static final XMLInputFactory READERS = readers();

  private static XMLInputFactory readers() {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    return factory;
  }

  /**
   * Reads a daticert.xml; a document without the required elements, or not XML, is refused with
   * what is missing.
   */
  public static Daticert parse(byte[] xml) {
    XMLInputFactory factory = READERS;
    String tipo = null,
        errore = null,
        mittente = null,
        risposte = null,
        oggetto = null,
        gestore = null,
        giorno = null,
        ora = null,
        zona = null;
    String identificativo = null,
        msgid = null,
        ricevuta = null,
        consegna = null,
        erroreEsteso = null;
    List<Recipient> destinatari = new ArrayList<>();
    List<String> ricezione = new ArrayList<>();
    try {
      XMLStreamReader r = factory.createXMLStreamReader(new ByteArrayInputStream(xml));
      try {
        while (r.hasNext()) {
          if (r.next() != XMLStreamConstants.START_ELEMENT) continue;
          switch (r.getLocalName()) {
            case "postacert" -> {
              tipo = r.getAttributeValue(null, "tipo");
              errore = r.getAttributeValue(null, "errore");
            }
            case "mittente" -> mittente = r.getElementText().strip();
            case "destinatari" -> {
              boolean certified = !"esterno".equals(r.getAttributeValue(null, "tipo"));
              destinatari.add(new Recipient(r.getElementText().strip(), certified));
            }
            case "risposte" -> risposte = r.getElementText().strip();
            case "oggetto" -> oggetto = r.getElementText();
            case "gestore-emittente" -> gestore = r.getElementText().strip();
            case "data" -> zona = r.getAttributeValue(null, "zona");
            case "giorno" -> giorno = r.getElementText().strip();
            case "ora" -> ora = r.getElementText().strip();
            case "identificativo" -> identificativo = r.getElementText().strip();
            case "msgid" -> msgid = r.getElementText().strip();
            case "ricevuta" -> ricevuta = r.getAttributeValue(null, "tipo");
            case "consegna" -> consegna = r.getElementText().strip();
            case "ricezione" -> ricezione.add(r.getElementText().strip());
            case "errore-esteso" -> erroreEsteso = r.getElementText();
            default -> {}
          }
        }
      } finally {
        r.close();
      }
    } catch (XMLStreamException e) {
      throw new IllegalArgumentException(
          "daticert.xml is not well-formed XML: "
              + e.getMessage().lines().reduce((a, b) -> b).orElse(""));
    }
    List<String> missing = new ArrayList<>();
    if (tipo == null) missing.add("postacert/@tipo");
    if (mittente == null) missing.add("mittente");
    if (destinatari.isEmpty()) missing.add("destinatari");
    if (gestore == null) missing.add("gestore-emittente");
    if (giorno == null || ora == null || zona == null) missing.add("data (giorno, ora, zona)");
    if (identificativo == null) missing.add("identificativo");
    if (!missing.isEmpty())
      throw new IllegalArgumentException("daticert.xml lacks " + String.join(", ", missing));
    ZonedDateTime when;
    try {
      when = ZonedDateTime.parse(giorno + " " + ora + " " + zona, WHEN);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "daticert.xml has a date it cannot read: " + giorno + " " + ora + " zona " + zona);
    }
    return new Daticert(
        tipo,
        errore,
        mittente,
        destinatari,
        risposte,
        oggetto,
        gestore,
        when,
        identificativo,
        msgid,
        ricevuta,
        consegna,
        ricezione,
        erroreEsteso);
  }
}
