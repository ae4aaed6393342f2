package io.pkibench.formats.ades;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSString;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDMetadata;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.pdfbox.pdmodel.graphics.image.JPEGFactory;
import org.apache.pdfbox.pdmodel.graphics.image.PDImageXObject;

/**
 * The document the PDF workloads sign unless given {@code -p file=}: about 137 KB (the size the
 * Rest PKI study used) of text pages and photographic images, the same bytes every time (fixed
 * seed), so that runs on different machines sign the same thing.
 */
public final class SamplePdf {
  private static final long SEED = 137;
  private static final int PAGES = 4;

  private SamplePdf() {}

  public static byte[] generate() throws IOException {
    return generate(false);
  }

  /**
   * Where {@link #withIdentifierSlot()}'s copy keeps its identifier: this marker, then {@link
   * #IDENTIFIER_DIGITS} hexadecimal digits (zeros), in an XMP metadata stream stored unfiltered.
   */
  public static final String IDENTIFIER_MARKER = "pkibench-operation:";

  public static final int IDENTIFIER_DIGITS = 24;

  /**
   * The same document with an XMP metadata stream that holds an identifier of the copy: writing
   * other hexadecimal digits over the zeros after {@link #IDENTIFIER_MARKER} (the one place it
   * occurs) gives another valid PDF of the same length, every offset in its cross-reference the
   * same (the stream is stored without a filter, outside any object stream), so that each operation
   * can send a PDF of its own for the cost of writing {@link #IDENTIFIER_DIGITS} bytes.
   */
  public static byte[] withIdentifierSlot() throws IOException {
    return generate(true);
  }

  private static byte[] generate(boolean identifierSlot) throws IOException {
    SplittableRandom random = new SplittableRandom(SEED);
    try (PDDocument doc = new PDDocument();
        ByteArrayOutputStream out = new ByteArrayOutputStream()) {
      PDDocumentInformation info = new PDDocumentInformation();
      info.setTitle("pkibench sample contract");
      info.setProducer("pkibench");
      doc.setDocumentInformation(info);
      if (identifierSlot) {
        PDMetadata metadata = new PDMetadata(doc);
        metadata.importXMPMetadata(identifierXmp());
        doc.getDocumentCatalog().setMetadata(metadata);
      }
      PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
      for (int page = 1; page <= PAGES; page++) {
        PDPage p = new PDPage(PDRectangle.A4);
        doc.addPage(p);
        PDImageXObject image = JPEGFactory.createFromImage(doc, photo(random, 420, 300), 0.82f);
        try (PDPageContentStream content = new PDPageContentStream(doc, p)) {
          content.beginText();
          content.setFont(font, 10);
          content.setLeading(13);
          content.newLineAtOffset(50, 790);
          content.showText("pkibench sample contract - page " + page + " of " + PAGES);
          content.newLine();
          for (int line = 0; line < 22; line++) {
            content.showText(sentence(random));
            content.newLine();
          }
          content.endText();
          content.drawImage(image, 50, 80, 420, 300);
        }
      }
      // A fixed file identifier: PDFBox would otherwise derive one from the clock, and the bytes
      // would differ each time.
      COSArray id = new COSArray();
      byte[] idBytes = new byte[16];
      random.nextBytes(idBytes);
      id.add(new COSString(idBytes));
      id.add(new COSString(idBytes));
      doc.getDocument().getTrailer().setItem(COSName.ID, id);
      doc.save(out);
      return out.toByteArray();
    }
  }

  private static byte[] identifierXmp() {
    String xmp =
        "<?xpacket begin=\"\uFEFF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
            + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
            + "<dc:identifier>"
            + IDENTIFIER_MARKER
            + "0".repeat(IDENTIFIER_DIGITS)
            + "</dc:identifier></rdf:Description></rdf:RDF></x:xmpmeta>\n"
            + "<?xpacket end=\"w\"?>";
    return xmp.getBytes(StandardCharsets.UTF_8);
  }

  /** Smooth gradients with grain: compresses like a photograph, not like noise or a flat colour. */
  private static BufferedImage photo(SplittableRandom random, int width, int height) {
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    for (int i = 0; i < 40; i++) {
      g.setColor(new Color(random.nextInt(256), random.nextInt(256), random.nextInt(256)));
      g.fillOval(
          random.nextInt(width) - 60,
          random.nextInt(height) - 60,
          40 + random.nextInt(160),
          40 + random.nextInt(160));
    }
    g.dispose();
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        int rgb = image.getRGB(x, y);
        int grain = random.nextInt(25) - 12;
        int r = clamp(((rgb >> 16) & 0xff) + grain),
            gr = clamp(((rgb >> 8) & 0xff) + grain),
            b = clamp((rgb & 0xff) + grain);
        image.setRGB(x, y, (r << 16) | (gr << 8) | b);
      }
    }
    return image;
  }

  private static int clamp(int v) {
    return Math.max(0, Math.min(255, v));
  }

  private static final String[] WORDS = {
    "the",
    "parties",
    "agree",
    "that",
    "payment",
    "shall",
    "be",
    "made",
    "within",
    "thirty",
    "days",
    "of",
    "signature",
    "by",
    "electronic",
    "transfer",
    "to",
    "account",
    "named",
    "in",
    "annex",
    "and",
    "any",
    "dispute"
  };

  private static String sentence(SplittableRandom random) {
    StringBuilder s = new StringBuilder();
    while (s.length() < 90) s.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    return s.toString().trim() + ".";
  }
}
