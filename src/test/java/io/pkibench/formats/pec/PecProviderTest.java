package io.pkibench.formats.pec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Commands;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.bouncycastle.asn1.ASN1GeneralizedTime;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.CMSAttributes;
import org.bouncycastle.asn1.cms.Time;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider's documents, checked by code we did not write: openssl smime verifies every signed
 * document, xmllint validates every daticert.xml against the schema written from the rules; the
 * anomaly and non-acceptance paths say why.
 */
class PecProviderTest {
  @TempDir static Path dir;
  static TestKeys keys;
  static PecProvider pec1;
  static PecProvider pec2;
  static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-23T09:30:00Z"));

  @BeforeAll
  static void providers() throws Exception {
    keys = TestKeys.in(dir);
    ProviderIndex index =
        new ProviderIndex(
            Map.of(
                "pec1.test",
                keys.keys.key("signer-rsa2048-1").certificate(),
                "pec2.test",
                keys.keys.key("signer-rsa2048-2").certificate()));
    pec1 =
        new PecProvider(
            "pec1.test",
            "Gestore uno",
            keys.keys.key("signer-rsa2048-1"),
            index,
            CLOCK,
            ZoneId.of("Europe/Rome"));
    pec2 =
        new PecProvider(
            "pec2.test",
            "Gestore due",
            keys.keys.key("signer-rsa2048-2"),
            index,
            CLOCK,
            ZoneId.of("Europe/Rome"));
  }

  static byte[] message(String messageId) {
    return PecMessages.message(
        "alice@pec1.test", "bob@pec2.test", messageId, "Fattura n. 7", 60 * 1024, 7);
  }

  /**
   * The clear-signed body is assembled by hand (one serialisation, one digest pass); BouncyCastle's
   * own S/MIME parser, over Jakarta Mail's reading of the multipart, must verify it; and a document
   * made by BouncyCastle's S/MIME generator must pass our verification.
   */
  @Test
  void clearSigned_bouncyCastlesSmimeVerifiesOurs_andOursVerifiesBouncyCastles() throws Exception {
    Outgoing envelope =
        pec1.accept("bc1", "alice@pec1.test", List.of("bob@pec2.test"), message("<bc1@pec1.test>"))
            .get(1);
    var signed =
        new org.bouncycastle.mail.smime.SMIMESigned(
            (jakarta.mail.internet.MimeMultipart) parse(envelope.bytes()).getContent());
    var signer = signed.getSignerInfos().getSigners().iterator().next();
    var cert =
        (org.bouncycastle.cert.X509CertificateHolder)
            signed.getCertificates().getMatches(signer.getSID()).iterator().next();
    assertTrue(
        signer.verify(
            new org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder().build(cert)),
        "BouncyCastle's S/MIME verifies our body");

    // the same kind of document, signed by BouncyCastle's SMIMESignedGenerator over Jakarta Mail
    var key = keys.keys.key("signer-rsa2048-1");
    var content = new jakarta.mail.internet.MimeBodyPart();
    content.setText("a receipt signed by another implementation\r\n", "UTF-8");
    var generator = new org.bouncycastle.mail.smime.SMIMESignedGenerator();
    generator.addSignerInfoGenerator(
        new org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoGeneratorBuilder()
            .build("SHA256withRSA", key.privateKey(), key.certificate()));
    generator.addCertificates(
        new org.bouncycastle.cert.jcajce.JcaCertStore(List.of(key.certificate())));
    MimeMessage bc = new MimeMessage(Session.getInstance(new Properties()));
    bc.setFrom(new jakarta.mail.internet.InternetAddress("posta-certificata@pec1.test"));
    bc.setRecipients(jakarta.mail.Message.RecipientType.TO, "bob@pec2.test");
    bc.setSubject("CONSEGNA: x");
    bc.setHeader("X-Ricevuta", "avvenuta-consegna");
    var multipart = generator.generate(content);
    bc.setContent(multipart, multipart.getContentType());
    bc.saveChanges();
    var out = new java.io.ByteArrayOutputStream();
    bc.writeTo(out);
    Verification v = pec2.verify(out.toByteArray());
    assertTrue(v.verified(), "our verification accepts BouncyCastle's S/MIME: " + v.problem());
    byte[] altered =
        new String(out.toByteArray(), StandardCharsets.ISO_8859_1)
            .replace("another implementation", "another implementatioN")
            .getBytes(StandardCharsets.ISO_8859_1);
    assertTrue(pec2.verify(altered).problem().contains("altered"), "and refuses it altered");
  }

  /**
   * The signing time is written as DER by hand (BouncyCastle's went through SimpleDateFormat twice
   * per signature): the bytes BouncyCastle writes for the same second, GeneralizedTime from 2050,
   * and in a document the time it was signed.
   */
  @Test
  void signingTime_writtenByHand_isBouncyCastlesDerAndTheTimeOfSigning() throws Exception {
    Instant at = Instant.parse("2026-11-23T09:30:07Z");
    assertArrayEquals(
        new Attribute(
                CMSAttributes.signingTime,
                new DERSet(new Time(java.util.Date.from(at), java.util.Locale.ROOT)))
            .getEncoded("DER"),
        DocumentSigner.signingTime(at).getEncoded("DER"));
    Instant late = Instant.parse("2051-02-03T04:05:06Z");
    var lateValue =
        DocumentSigner.signingTime(late).getAttrValues().getObjectAt(0).toASN1Primitive();
    assertTrue(lateValue instanceof ASN1GeneralizedTime, lateValue.getClass().toString());
    assertEquals(java.util.Date.from(late), Time.getInstance(lateValue).getDate());

    Instant before = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    Outgoing acceptance =
        pec1.accept(
                "job-time",
                "alice@pec1.test",
                List.of("bob@pec2.test"),
                message("<time@pec1.test>"))
            .get(0);
    MimeMessage m = parse(acceptance.bytes());
    String boundary =
        new jakarta.mail.internet.ContentType(m.getContentType()).getParameter("boundary");
    byte[] signature;
    try (var body = m.getRawInputStream()) {
      signature = ClearSigned.split(body.readAllBytes(), boundary).signature();
    }
    // written definite-length without DER's re-encoding (see DocumentSigner), it is still DER, as a
    // strict verifier wants
    assertArrayEquals(
        ASN1Primitive.fromByteArray(signature).getEncoded("DER"),
        signature,
        "the signature is DER");
    SignerInformation signer =
        new CMSSignedData(signature).getSignerInfos().getSigners().iterator().next();
    Attribute time = signer.getSignedAttributes().get(CMSAttributes.signingTime);
    Instant signed = Time.getInstance(time.getAttrValues().getObjectAt(0)).getDate().toInstant();
    assertTrue(
        !signed.isBefore(before) && !signed.isAfter(Instant.now()),
        "signed at " + signed + ", the call began " + before);
  }

  @Test
  void canonicalForm_bareLineBreaksBecomeCrlf_splitFindsThePartsWithLfEndings() {
    assertArrayEquals(
        "a\r\nb\r\nc\r\n".getBytes(StandardCharsets.US_ASCII),
        ClearSigned.canonical("a\nb\rc\r\n".getBytes(StandardCharsets.US_ASCII)));
    byte[] already = "a\r\nb\r\n".getBytes(StandardCharsets.US_ASCII);
    assertTrue(already == ClearSigned.canonical(already), "canonical input is returned as it is");
    String body =
        "preamble\n--B\nContent-Type: text/plain\n\nsigned\n--B\nContent-Type: application/pkcs7-signature\nContent-Transfer-Encoding: base64\n\nAQID\n--B--\n";
    ClearSigned.Parts parts = ClearSigned.split(body.getBytes(StandardCharsets.US_ASCII), "B");
    assertEquals(
        "Content-Type: text/plain\r\n\r\nsigned",
        new String(parts.signedPart(), StandardCharsets.US_ASCII));
    assertArrayEquals(new byte[] {1, 2, 3}, parts.signature());
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ClearSigned.split("--B\nx\n".getBytes(StandardCharsets.US_ASCII), "B"));
    assertTrue(e.getMessage().contains("not closed by its boundary"), e.getMessage());
  }

  /**
   * The signed content is written by hand (DocumentBody): Python's email package, which we did not
   * write, reads a delivery receipt's three parts back: the text decoded from quoted-printable, the
   * original byte for byte, daticert.xml from base64; and our reader gives what Python read.
   */
  @Test
  void documentBody_writtenByHand_pythonsEmailPackageReadsItsThreeParts() throws Exception {
    byte[] original = message("<m-body@pec1.test>");
    Outgoing envelope =
        pec1.accept("job-body", "alice@pec1.test", List.of("bob@pec2.test"), original).get(1);
    Outgoing delivery =
        pec2.receive(
                "job-body2",
                "posta-certificata@pec1.test",
                List.of("bob@pec2.test"),
                envelope.bytes())
            .get(2);
    Path doc = Files.write(dir.resolve("delivery-body.eml"), delivery.bytes());
    Path script =
        Files.writeString(
            dir.resolve("parts.py"),
            String.join(
                "\n",
                "import email, email.policy, sys",
                "m = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=email.policy.compat32)",
                "signed = m.get_payload(0)",
                "assert signed.get_content_type() == 'multipart/mixed', signed.get_content_type()",
                "text, eml, xml = signed.get_payload()",
                "open(sys.argv[2], 'wb').write(text.get_payload(decode=True))",
                "open(sys.argv[3], 'wb').write(xml.get_payload(decode=True))",
                "print(text.get_content_type(), text['Content-Transfer-Encoding'], eml.get_content_type(), eml.get_filename(), xml.get_filename())",
                "print(m.defects + signed.defects + text.defects + xml.defects)",
                ""));
    String out =
        Commands.run(
            dir,
            List.of(
                "python3",
                script.toString(),
                doc.toString(),
                dir.resolve("text.out").toString(),
                dir.resolve("xml.out").toString()),
            0);
    assertTrue(
        out.startsWith("text/plain quoted-printable message/rfc822 postacert.eml daticert.xml\n[]"),
        out);
    String text =
        Files.readString(dir.resolve("text.out"), StandardCharsets.UTF_8)
            .replace("\r\n", "\n"); // Python's line ends
    assertTrue(
        text.startsWith("Ricevuta di avvenuta consegna\n\nIl giorno 23/11/2026")
            && text.contains("è stato consegnato nella casella di destinazione."),
        text);
    SignedContent ours = PecProvider.signedContent(delivery.bytes());
    assertEquals(
        Daticert.parse(Files.readAllBytes(dir.resolve("xml.out"))),
        ours.daticert(),
        "daticert.xml as Python decoded it");
    assertEquals("bob@pec2.test", ours.daticert().consegna());
    assertEquals(
        new String(original, StandardCharsets.ISO_8859_1),
        new String(ours.original(), StandardCharsets.ISO_8859_1),
        "postacert.eml is the original, byte for byte");
  }

  @Test
  void
      a_message_is_accepted_enveloped_taken_in_charge_and_delivered_each_document_signed_and_valid()
          throws Exception {
    byte[] original = message("<m1@pec1.test>");
    List<Outgoing> sent =
        pec1.accept("job1", "alice@pec1.test", List.of("bob@pec2.test"), original);
    assertEquals(
        List.of(DocumentKind.ACCEPTANCE, DocumentKind.TRANSPORT),
        sent.stream().map(Outgoing::kind).toList());
    Outgoing acceptance = sent.get(0);
    Outgoing envelope = sent.get(1);
    assertEquals(List.of("alice@pec1.test"), acceptance.to());
    assertEquals(List.of("bob@pec2.test"), envelope.to());
    assertEquals("<opec.job1@pec1.test>", envelope.messageId());

    MimeMessage e = parse(envelope.bytes());
    assertEquals("posta-certificata", e.getHeader("X-Trasporto", null));
    assertEquals("<m1@pec1.test>", e.getHeader("X-Riferimento-Message-ID", null));
    assertEquals("POSTA CERTIFICATA: Fattura n. 7", e.getSubject());
    assertEquals(
        "\"Per conto di: alice@pec1.test\" <posta-certificata@pec1.test>",
        e.getHeader("From", null));
    assertTrue(e.isMimeType("multipart/signed"));
    SignedContent content = PecProvider.signedContent(envelope.bytes());
    assertEquals(
        new String(original, StandardCharsets.US_ASCII),
        new String(content.original(), StandardCharsets.US_ASCII),
        "postacert.eml is the original, byte for byte");
    Daticert d = content.daticert();
    assertEquals("posta-certificata", d.tipo());
    assertEquals("<m1@pec1.test>", d.msgid());
    assertEquals("opec.job1@pec1.test", d.identificativo());
    assertEquals(List.of(new Daticert.Recipient("bob@pec2.test", true)), d.destinatari());
    assertEquals("Gestore uno", d.gestoreEmittente());
    assertEquals(java.time.LocalTime.of(10, 30), d.data().toLocalTime(), "09:30Z in Rome");

    List<Outgoing> received =
        pec2.receive(
            "job9", "posta-certificata@pec1.test", List.of("bob@pec2.test"), envelope.bytes());
    assertEquals(3, received.size(), received.toString());
    Outgoing taking = received.get(0);
    assertEquals(DocumentKind.TAKING_CHARGE, taking.kind());
    assertEquals(List.of("posta-certificata@pec1.test"), taking.to());
    assertNull(received.get(1).kind(), "the envelope itself goes into bob's mailbox");
    assertEquals(List.of("bob@pec2.test"), received.get(1).to());
    assertTrue(java.util.Arrays.equals(envelope.bytes(), received.get(1).bytes()));
    Outgoing delivery = received.get(2);
    assertEquals(DocumentKind.DELIVERY, delivery.kind());
    assertEquals(List.of("alice@pec1.test"), delivery.to());
    Daticert dd = PecProvider.signedContent(delivery.bytes()).daticert();
    assertEquals("avvenuta-consegna", dd.tipo());
    assertEquals("bob@pec2.test", dd.consegna());
    assertEquals("completa", dd.ricevuta());
    assertEquals("<m1@pec1.test>", dd.msgid());
    assertEquals("opec.job1@pec1.test", dd.identificativo());
    assertNotNull(
        PecProvider.signedContent(delivery.bytes()).original(),
        "a complete delivery receipt carries the original");

    // the receipts come back to pec1 and verify there; openssl and xmllint accept every document
    assertTrue(pec1.verify(taking.bytes()).verified());
    assertTrue(pec1.verify(delivery.bytes()).verified());
    for (Outgoing doc : List.of(acceptance, envelope, taking, delivery)) {
      assertOpensslVerifies(doc);
      assertSchemaValid(
          PecProvider.signedContent(doc.bytes()).daticert().toXml(), doc.kind().value);
    }
  }

  @Test
  void a_tampered_envelope_becomes_an_anomaly_with_the_security_header_and_no_receipts()
      throws Exception {
    Outgoing envelope =
        pec1.accept("job2", "alice@pec1.test", List.of("bob@pec2.test"), message("<m2@pec1.test>"))
            .get(1);
    String text = new String(envelope.bytes(), StandardCharsets.ISO_8859_1);
    String altered = text.replaceFirst("Fattura n\\. 7\" ", "Fattura n. 8\" ");
    assertFalse(altered.equals(text), "the test altered the signed text");
    List<Outgoing> out =
        pec2.receive(
            "job10",
            "posta-certificata@pec1.test",
            List.of("bob@pec2.test"),
            altered.getBytes(StandardCharsets.ISO_8859_1));
    assertEquals(1, out.size());
    Outgoing anomaly = out.get(0);
    assertEquals(DocumentKind.ANOMALY, anomaly.kind());
    MimeMessage a = parse(anomaly.bytes());
    assertEquals("errore", a.getHeader("X-Trasporto", null));
    assertEquals("errore", a.getHeader("X-VerificaSicurezza", null));
    assertEquals("ANOMALIA MESSAGGIO: POSTA CERTIFICATA: Fattura n. 7", a.getSubject());
    String problem = pec2.verify(altered.getBytes(StandardCharsets.ISO_8859_1)).problem();
    assertTrue(problem.contains("altered after pec1.test signed it"), problem);
    assertOpensslVerifies(anomaly);
  }

  @Test
  void ordinary_mail_is_delivered_in_an_anomaly_envelope_without_the_security_header()
      throws Exception {
    List<Outgoing> out =
        pec2.receive(
            "job11",
            "someone@example.org",
            List.of("bob@pec2.test"),
            PecMessages.message(
                "someone@example.org", "bob@pec2.test", "<x@example.org>", "hello", 2000, 3));
    assertEquals(DocumentKind.ANOMALY, out.get(0).kind());
    assertNull(parse(out.get(0).bytes()).getHeader("X-VerificaSicurezza", null));
  }

  @Test
  void an_envelope_signed_by_a_provider_outside_the_index_is_an_anomaly() throws Exception {
    ProviderIndex other =
        new ProviderIndex(Map.of("pec1.test", keys.keys.key("signer-rsa2048-3").certificate()));
    PecProvider stranger =
        new PecProvider(
            "pec2.test",
            "x",
            keys.keys.key("signer-rsa2048-2"),
            other,
            CLOCK,
            ZoneId.of("Europe/Rome"));
    Outgoing envelope =
        pec1.accept("job3", "alice@pec1.test", List.of("bob@pec2.test"), message("<m3@pec1.test>"))
            .get(1);
    Verification v = stranger.verify(envelope.bytes());
    assertFalse(v.verified());
    assertTrue(v.problem().contains("not a provider of the index"), v.problem());
    assertTrue(v.securityFailure());
  }

  @Test
  void formal_problems_give_a_non_acceptance_that_names_each() throws Exception {
    String noId =
        new String(message("<m4@pec1.test>"), StandardCharsets.US_ASCII)
            .replace("Message-ID: <m4@pec1.test>\r\n", "")
            .replace("From: alice@pec1.test", "From: mallory@pec1.test");
    List<Outgoing> out =
        pec1.accept(
            "job4",
            "alice@pec1.test",
            List.of("bob@pec2.test"),
            noId.getBytes(StandardCharsets.US_ASCII));
    assertEquals(1, out.size());
    assertEquals(DocumentKind.NON_ACCEPTANCE, out.get(0).kind());
    assertEquals(List.of("alice@pec1.test"), out.get(0).to());
    Daticert d = PecProvider.signedContent(out.get(0).bytes()).daticert();
    assertEquals("non-accettazione", d.tipo());
    assertEquals("altro", d.errore());
    assertTrue(d.erroreEsteso().contains("no Message-ID"), d.erroreEsteso());
    assertTrue(d.erroreEsteso().contains("mallory@pec1.test"), d.erroreEsteso());
    assertOpensslVerifies(out.get(0));
    assertSchemaValid(d.toXml(), "non-accettazione");
  }

  @Test
  void daticert_reads_back_what_it_writes_and_refuses_what_lacks_required_elements() {
    Daticert d =
        new Daticert(
            "accettazione",
            null,
            "a@x.test",
            List.of(new Daticert.Recipient("b@y.test", false)),
            null,
            "<&> \"q\"",
            "G",
            java.time.ZonedDateTime.parse("2026-07-01T08:00:00+02:00[Europe/Rome]"),
            "id1@x.test",
            "<m@x>",
            null,
            null,
            List.of(),
            null);
    Daticert back = Daticert.parse(d.toXml());
    assertEquals(d.oggetto(), back.oggetto());
    assertEquals(d.destinatari(), back.destinatari());
    assertEquals(d.data().toInstant(), back.data().toInstant());
    assertEquals("a@x.test", back.risposte());
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                Daticert.parse(
                    "<postacert tipo=\"accettazione\"><intestazione/></postacert>"
                        .getBytes(StandardCharsets.UTF_8)));
    assertTrue(
        e.getMessage().contains("mittente") && e.getMessage().contains("identificativo"),
        e.getMessage());
    IllegalArgumentException dtd =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                Daticert.parse(
                    "<!DOCTYPE p [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><postacert>&x;</postacert>"
                        .getBytes(StandardCharsets.UTF_8)));
    assertNotNull(dtd.getMessage());
  }

  static MimeMessage parse(byte[] bytes) throws Exception {
    return new MimeMessage(Session.getInstance(new Properties()), new ByteArrayInputStream(bytes));
  }

  static void assertOpensslVerifies(Outgoing doc) throws Exception {
    Path file = Files.write(dir.resolve(doc.kind().value + ".eml"), doc.bytes());
    String r =
        Openssl.run(
            "smime",
            "-verify",
            "-in",
            file.toString(),
            "-CAfile",
            keys.pki.caChainPem().toString(),
            "-purpose",
            "any",
            "-out",
            dir.resolve(doc.kind().value + ".content").toString());
    assertTrue(
        Openssl.succeeded(r) && r.contains("Verification successful"), doc.kind().value + ": " + r);
  }

  static void assertSchemaValid(byte[] xml, String name) throws Exception {
    Path file = Files.write(dir.resolve(name + "-daticert.xml"), xml);
    Path xsd = dir.resolve("daticert.xsd");
    try (var in = Daticert.class.getResourceAsStream("daticert.xsd")) {
      Files.write(xsd, in.readAllBytes());
    }
    Process p =
        new ProcessBuilder("xmllint", "--noout", "--schema", xsd.toString(), file.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), name + ": " + out);
    assertTrue(out.contains("validates"), out);
  }
}
