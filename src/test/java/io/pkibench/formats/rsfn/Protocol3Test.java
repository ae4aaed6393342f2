package io.pkibench.formats.rsfn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.GoldenFiles;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestCertificates;
import io.pkibench.testing.TestProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The protocol 3 codec: a sealed golden vector, checks by openssl and BouncyCastle, one tamper per
 * field, providers across.
 */
class Protocol3Test {
  static final String GOLDEN = "envelope-normal.rsfn";
  @TempDir Path dir;
  static SigningKey sender, recipient;

  @BeforeAll
  static void parties() throws Exception {
    sender = RsfnFixture.key("sender", ProviderChoice.JDK);
    recipient = RsfnFixture.key("recipient", ProviderChoice.JDK);
  }

  static byte[] goldenEnvelope() throws Exception {
    return RsfnFixture.goldenCodec(List.of())
        .pack(sender, recipient.certificate(), RsfnFixture.payload(), Treatment.NORMAL);
  }

  @Test
  void pack_fixedKeysRandomAndClock_matchesTheSealedVector() throws Exception {
    byte[] envelope = goldenEnvelope();
    Path sealed = Path.of("src/test/resources/io/pkibench/formats/rsfn", GOLDEN);
    GoldenFiles.assertMatches(
        sealed, envelope, "the envelope differs from the sealed vector " + GOLDEN);
  }

  @Test
  void decode_goldenHeader_everyFieldAsTheTableSays() throws Exception {
    byte[] envelope = RsfnFixture.resource(GOLDEN);
    SecurityHeader h = SecurityHeader.decode(envelope);
    assertEquals(588, h.length());
    assertEquals(0x02, envelope[0] & 0xFF, "C01 big-endian 0x024C");
    assertEquals(0x4C, envelope[1] & 0xFF);
    assertEquals(0x03, h.version());
    assertEquals(0x00, h.errorCode());
    assertEquals(0, h.treatment());
    assertEquals(0, h.reserved());
    assertEquals(0x02, h.recipientKey(), "RSA-2048");
    assertEquals(0x02, h.symmetric(), "AES-256");
    assertEquals(0x02, h.senderKey(), "RSA-2048");
    assertEquals(0x03, h.hash(), "SHA-256");
    assertEquals(0x02, h.recipientCa(), "AC Certisign Teste → Certisign");
    assertEquals("00000000000000000123456789ABCDEF", h.recipientSerial());
    assertEquals(0x01, h.senderCa(), "AC SERPRO Teste → Serpro");
    assertEquals(
        "00A1B2C3D4E5F60718293A4B5C6D7E8F",
        h.senderSerial(),
        "a 30-digit serial left-padded with '0' to 32");
    assertEquals(
        RsfnFixture.payload().length + 16,
        envelope.length - 588,
        "ciphertext ‖ 16-byte tag after the header");
    assertArrayEquals(Arrays.copyOf(envelope, 588), h.encode(), "encode(decode(x)) = x");
    Unpacked u =
        RsfnFixture.goldenCodec(List.of()).unpack(recipient, sender.certificate(), envelope);
    assertTrue(u.ok(), u.toString());
    assertArrayEquals(RsfnFixture.payload(), u.payload());
  }

  @Test
  void pack_checkedByOpensslAndBouncyCastle_signatureKeyAndCiphertext() throws Exception {
    byte[] envelope = goldenEnvelope();
    SecurityHeader h = SecurityHeader.decode(envelope);
    Files.write(dir.resolve("payload.bin"), RsfnFixture.payload());
    Files.write(dir.resolve("c15.bin"), h.signature());
    Files.write(dir.resolve("c14.bin"), h.wrappedKey());
    Path senderCert = RsfnFixture.file(dir, "sender.pem");
    Path recipientKey = RsfnFixture.file(dir, "recipient.key");
    String pub =
        Openssl.run(
            dir,
            "x509",
            "-in",
            senderCert.toString(),
            "-pubkey",
            "-noout",
            "-out",
            "sender-pub.pem");
    assertTrue(Openssl.succeeded(pub), pub);
    String verified =
        Openssl.run(
            dir,
            "dgst",
            "-sha256",
            "-verify",
            "sender-pub.pem",
            "-signature",
            "c15.bin",
            "payload.bin");
    assertTrue(
        Openssl.succeeded(verified) && verified.contains("Verified OK"),
        "openssl verifies C15 over the plaintext: " + verified);
    String decrypted =
        Openssl.run(
            dir,
            "pkeyutl",
            "-decrypt",
            "-inkey",
            recipientKey.toString(),
            "-in",
            "c14.bin",
            "-out",
            "keyiv.bin");
    assertTrue(Openssl.succeeded(decrypted), decrypted);
    byte[] keyIv = Files.readAllBytes(dir.resolve("keyiv.bin"));
    assertEquals(44, keyIv.length, "C14 wraps the AES-256 key (32) and the IV (12)");
    GCMBlockCipher gcm = (GCMBlockCipher) GCMBlockCipher.newInstance(AESEngine.newInstance());
    gcm.init(
        false,
        new AEADParameters(new KeyParameter(keyIv, 0, 32), 128, Arrays.copyOfRange(keyIv, 32, 44)));
    byte[] body = Arrays.copyOfRange(envelope, 588, envelope.length);
    byte[] plain = new byte[gcm.getOutputSize(body.length)];
    int n = gcm.processBytes(body, 0, body.length, plain, 0);
    n += gcm.doFinal(plain, n);
    assertArrayEquals(
        RsfnFixture.payload(),
        Arrays.copyOf(plain, n),
        "BouncyCastle's own GCM opens the ciphertext with openssl's key");
  }

  @Test
  void unpack_envelopeMadeByOpensslAndBouncyCastle_accepted() throws Exception {
    // Every part by code we did not write: openssl signs and wraps, BouncyCastle's GCM encrypts,
    // the header laid out here byte by byte.
    byte[] payload = RsfnFixture.payload();
    Files.write(dir.resolve("payload.bin"), payload);
    Path senderKey = RsfnFixture.file(dir, "sender.key");
    Path recipientCert = RsfnFixture.file(dir, "recipient.pem");
    assertTrue(
        Openssl.succeeded(
            Openssl.run(
                dir,
                "dgst",
                "-sha256",
                "-sign",
                senderKey.toString(),
                "-out",
                "sig.bin",
                "payload.bin")));
    byte[] keyIv = new byte[44];
    new SecureRandom().nextBytes(keyIv);
    Files.write(dir.resolve("keyiv.bin"), keyIv);
    assertTrue(
        Openssl.succeeded(
            Openssl.run(
                dir,
                "x509",
                "-in",
                recipientCert.toString(),
                "-pubkey",
                "-noout",
                "-out",
                "r-pub.pem")));
    String wrap =
        Openssl.run(
            dir,
            "pkeyutl",
            "-encrypt",
            "-pubin",
            "-inkey",
            "r-pub.pem",
            "-in",
            "keyiv.bin",
            "-out",
            "wrapped.bin");
    assertTrue(Openssl.succeeded(wrap), wrap);
    GCMBlockCipher gcm = (GCMBlockCipher) GCMBlockCipher.newInstance(AESEngine.newInstance());
    gcm.init(
        true,
        new AEADParameters(new KeyParameter(keyIv, 0, 32), 128, Arrays.copyOfRange(keyIv, 32, 44)));
    byte[] body = new byte[gcm.getOutputSize(payload.length)];
    int n = gcm.processBytes(payload, 0, payload.length, body, 0);
    gcm.doFinal(body, n);
    byte[] header = new byte[588];
    header[0] = 0x02;
    header[1] = 0x4C;
    header[2] = 0x03;
    header[6] = 0x02;
    header[7] = 0x02;
    header[8] = 0x02;
    header[9] = 0x03;
    header[10] = 0x02;
    System.arraycopy(
        "00000000000000000123456789ABCDEF".getBytes(StandardCharsets.US_ASCII), 0, header, 11, 32);
    header[43] = 0x01;
    System.arraycopy(
        "00A1B2C3D4E5F60718293A4B5C6D7E8F".getBytes(StandardCharsets.US_ASCII), 0, header, 44, 32);
    System.arraycopy(Files.readAllBytes(dir.resolve("wrapped.bin")), 0, header, 76, 256);
    System.arraycopy(Files.readAllBytes(dir.resolve("sig.bin")), 0, header, 332, 256);
    byte[] envelope = new byte[588 + body.length];
    System.arraycopy(header, 0, envelope, 0, 588);
    System.arraycopy(body, 0, envelope, 588, body.length);
    Unpacked u =
        RsfnFixture.goldenCodec(List.of()).unpack(recipient, sender.certificate(), envelope);
    assertTrue(u.ok(), u.toString());
    assertArrayEquals(payload, u.payload());
  }

  record Tamper(String field, int offset, int value, boolean xor, ErrorCode expected) {}

  @Test
  void unpack_eachFieldTampered_answersItsOwnCode() throws Exception {
    byte[] envelope = goldenEnvelope();
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    List<Tamper> cases =
        List.of(
            new Tamper("C01", 1, 0x4D, false, ErrorCode.HEADER_LENGTH),
            new Tamper("C02", 2, 0x02, false, ErrorCode.VERSION),
            new Tamper("C03", 3, 0x0B, false, ErrorCode.OTHER),
            new Tamper("C04", 4, 0x05, false, ErrorCode.SPECIAL_TREATMENT),
            new Tamper("C05", 5, 0x01, false, ErrorCode.SPECIAL_TREATMENT),
            new Tamper("C06", 6, 0x01, false, ErrorCode.RECIPIENT_KEY_ALGORITHM),
            new Tamper("C07", 7, 0x01, false, ErrorCode.SYMMETRIC_ALGORITHM),
            new Tamper("C08", 8, 0x01, false, ErrorCode.SENDER_KEY_ALGORITHM),
            new Tamper("C09", 9, 0x07, false, ErrorCode.HASH_ALGORITHM),
            new Tamper("C09 SHA-1", 9, 0x02, false, ErrorCode.SIGNATURE),
            new Tamper("C10", 10, 0x04, false, ErrorCode.RECIPIENT_CA),
            new Tamper("C11", 11 + 31, 'E', false, ErrorCode.RECIPIENT_SERIAL),
            new Tamper("C12", 43, 0x02, false, ErrorCode.SENDER_CA),
            new Tamper("C13", 44 + 31, '0', false, ErrorCode.SENDER_SERIAL),
            new Tamper("C14", 76 + 128, 0x01, true, ErrorCode.KEY_EXTRACTION),
            new Tamper("C15", 332 + 100, 0x01, true, ErrorCode.SIGNATURE),
            new Tamper("ciphertext", 588 + 5, 0x01, true, ErrorCode.SYMMETRIC),
            new Tamper("tag", envelope.length - 1, 0x80, true, ErrorCode.SYMMETRIC));
    for (Tamper t : cases) {
      byte[] changed = envelope.clone();
      changed[t.offset()] = (byte) (t.xor() ? changed[t.offset()] ^ t.value() : t.value());
      assertFalse(Arrays.equals(changed, envelope), t.field() + " changed");
      Unpacked u = codec.unpack(recipient, sender.certificate(), changed);
      assertEquals(t.expected(), u.error(), t.field() + ": " + u);
      assertThrows(IllegalStateException.class, u::payload, "a refused envelope gives no payload");
      byte[] answer = u.answerHeader();
      assertEquals(588, answer.length);
      assertEquals(
          t.expected().code,
          answer[3] & 0xFF,
          t.field() + ": the answer header carries the code in C03");
    }
    Unpacked shortOne = codec.unpack(recipient, sender.certificate(), Arrays.copyOf(envelope, 100));
    assertEquals(ErrorCode.HEADER_LENGTH, shortOne.error());
    assertEquals(0x01, shortOne.answerHeader()[3]);
    assertEquals(
        ErrorCode.PAYLOAD_LENGTH,
        codec.unpack(recipient, sender.certificate(), Arrays.copyOf(envelope, 588)).error());
    assertEquals(
        ErrorCode.BLOCK_LENGTH,
        codec.unpack(recipient, sender.certificate(), Arrays.copyOf(envelope, 598)).error());
  }

  /**
   * What the field-by-field tampers cannot reach (each a mutant the first mutation run let live).
   */
  @Test
  void unpack_keyInC14OfAClearEnvelope_orAWrappedKeyOfTheWrongLength_refused14() throws Exception {
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    byte[] clear =
        codec.pack(sender, recipient.certificate(), RsfnFixture.payload(), Treatment.CLEAR);
    assertTrue(
        codec.unpack(recipient, sender.certificate(), clear).ok(),
        "the clear envelope as packed opens");
    clear[76 + 200] = 0x01; // C14 (76..331) is not signed: a key where none belongs
    Unpacked keyed = codec.unpack(recipient, sender.certificate(), clear);
    assertEquals(ErrorCode.KEY_EXTRACTION, keyed.error(), keyed.toString());
    assertEquals(
        "C14 holds a key, but C04 " + Treatment.CLEAR.code + " says not encrypted",
        keyed.message());

    byte[] envelope = goldenEnvelope();
    javax.crypto.Cipher rsa = javax.crypto.Cipher.getInstance("RSA/ECB/PKCS1Padding");
    rsa.init(javax.crypto.Cipher.ENCRYPT_MODE, recipient.certificate().getPublicKey());
    byte[] wrapped = rsa.doFinal(new byte[40]); // 40 bytes where the AES-256 key and GCM IV make 44
    assertEquals(256, wrapped.length);
    System.arraycopy(wrapped, 0, envelope, 76, 256);
    Unpacked shortKey = codec.unpack(recipient, sender.certificate(), envelope);
    assertEquals(ErrorCode.KEY_EXTRACTION, shortKey.error(), shortKey.toString());
    assertEquals("C14 holds 40 bytes; AES-256 key and IV are 44", shortKey.message());
  }

  /**
   * A clear envelope addressed to a recipient is still checked against the recipient's certificate
   * (C06, C10, C11), and one that says it is addressed needs the recipient's key; the first
   * mutation run showed none of it held by a test, nor C07 on a clear envelope, nor the GCM tag's
   * length at its edge.
   */
  @Test
  void unpack_clearEnvelopeAddressedToARecipient_recipientFieldsCheckedAndItsKeyRequired()
      throws Exception {
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    byte[] clear =
        codec.pack(sender, recipient.certificate(), RsfnFixture.payload(), Treatment.CLEAR);
    assertTrue(
        codec.unpack(recipient, sender.certificate(), clear).ok(),
        "the clear envelope as packed opens");
    Unpacked keyless = codec.unpack(null, sender.certificate(), clear);
    assertEquals(ErrorCode.KEY_EXTRACTION, keyless.error(), keyless.toString());
    assertEquals(
        "the envelope is addressed to a recipient; give the recipient's key", keyless.message());
    for (Tamper t :
        List.of(
            new Tamper("C06", 6, 0x01, false, ErrorCode.RECIPIENT_KEY_ALGORITHM),
            new Tamper("C10", 10, 0x04, false, ErrorCode.RECIPIENT_CA),
            new Tamper("C11", 11 + 31, 'E', false, ErrorCode.RECIPIENT_SERIAL),
            new Tamper("C07", 7, 0x01, false, ErrorCode.SYMMETRIC_ALGORITHM))) {
      byte[] changed = clear.clone();
      changed[t.offset()] = (byte) t.value();
      assertEquals(
          t.expected(),
          codec.unpack(recipient, sender.certificate(), changed).error(),
          t.field() + " of a clear envelope");
    }
    byte[] aesNamed = clear.clone();
    aesNamed[7] =
        0x02; // C07 may name AES-256 on a clear envelope: the header is not signed, and nothing is
    // decrypted
    assertTrue(codec.unpack(recipient, sender.certificate(), aesNamed).ok());

    byte[] broadcast = codec.pack(sender, null, RsfnFixture.payload(), Treatment.BROADCAST);
    assertTrue(
        codec.unpack(null, sender.certificate(), broadcast).ok(), "a broadcast needs no recipient");
    broadcast[6] = 0x02; // C06 now names a recipient's key: the envelope says it is addressed
    assertEquals(
        ErrorCode.KEY_EXTRACTION, codec.unpack(null, sender.certificate(), broadcast).error());

    byte[] envelope = goldenEnvelope();
    assertEquals(
        ErrorCode.SYMMETRIC,
        codec.unpack(recipient, sender.certificate(), Arrays.copyOf(envelope, 588 + 16)).error(),
        "a body of exactly the tag's 16 bytes is decrypted (and fails its tag), not refused for its length");
    assertEquals(
        ErrorCode.BLOCK_LENGTH,
        codec.unpack(recipient, sender.certificate(), Arrays.copyOf(envelope, 588 + 15)).error());
  }

  @Test
  void unpack_senderOrRecipientCertificateNotRsa2048_refused08And06() throws Exception {
    byte[] envelope = goldenEnvelope();
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    var p256 =
        TestCertificates.selfSigned(
            "not rsa-2048",
            RsfnFixture.GOLDEN_TIME.minusSeconds(3600),
            RsfnFixture.GOLDEN_TIME.plusSeconds(3600));
    Unpacked fromP256 = codec.unpack(recipient, p256, envelope);
    assertEquals(ErrorCode.SENDER_KEY_ALGORITHM, fromP256.error(), fromP256.toString());
    assertTrue(fromP256.message().contains("RSA-0 key"), fromP256.message());
    Unpacked toP256 =
        codec.unpack(
            new SigningKey("p256", recipient.privateKey(), List.of(p256), recipient.provider()),
            sender.certificate(),
            envelope);
    assertEquals(ErrorCode.RECIPIENT_KEY_ALGORITHM, toP256.error(), toP256.toString());
    assertTrue(toP256.message().contains("RSA-0 key"), toP256.message());
  }

  @Test
  void unpack_notEncryptedAndCompressed_roundTripsAndTamperedBodyFailsTheSignature()
      throws Exception {
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    byte[] big = "RSFN ".repeat(4000).getBytes(StandardCharsets.US_ASCII);
    for (Treatment t : Treatment.values()) {
      byte[] envelope =
          codec.pack(sender, t == Treatment.BROADCAST ? null : recipient.certificate(), big, t);
      SecurityHeader h = SecurityHeader.decode(envelope);
      assertEquals(t.code, h.treatment());
      if (!t.encrypted)
        assertTrue(SecurityHeader.isZero(h.wrappedKey()), t + ": C14 zeros when not encrypted");
      if (t.compressed) assertTrue(envelope.length - 588 < big.length / 10, t + ": compressed");
      Unpacked u =
          codec.unpack(t == Treatment.BROADCAST ? null : recipient, sender.certificate(), envelope);
      assertTrue(u.ok(), t + ": " + u);
      assertArrayEquals(big, u.payload(), t.toString());
      if (!t.encrypted) {
        byte[] changed = envelope.clone();
        changed[changed.length - 20] ^= 0x01;
        assertEquals(
            ErrorCode.SIGNATURE,
            codec.unpack(recipient, sender.certificate(), changed).error(),
            t + ": a changed clear body fails C15");
      }
    }
  }

  /**
   * The recipient's certificate held to the same validity and revocation as the sender's: a
   * recipient of a CA of its own, named as Certisign's so that its CA code is 0x02, valid through
   * 2027 only and revoked on its CA's CRL, while the sender stays valid and unrevoked.
   */
  /**
   * A recipient valid through 2027 only (serial 0x4242, under a CA CaCodes knows), and a CRL of its
   * CA revoking it.
   */
  record ShortLived(SigningKey key, java.security.cert.X509CRL revoking) {
    static ShortLived issue() throws Exception {
      var rsa = java.security.KeyPairGenerator.getInstance("RSA");
      rsa.initialize(2048);
      var caPair = rsa.generateKeyPair();
      var recipientPair = rsa.generateKeyPair();
      var caName =
          new org.bouncycastle.asn1.x500.X500Name("C=BR,O=pkibench test,CN=AC Certisign Teste");
      var caSigner =
          new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder("SHA256withRSA")
              .build(caPair.getPrivate());
      java.math.BigInteger serial = java.math.BigInteger.valueOf(0x4242);
      var certificate =
          new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter()
              .getCertificate(
                  new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(
                          caName,
                          serial,
                          java.util.Date.from(Instant.parse("2027-01-01T00:00:00Z")),
                          java.util.Date.from(Instant.parse("2027-12-31T00:00:00Z")),
                          new org.bouncycastle.asn1.x500.X500Name("C=BR,CN=short-lived recipient"),
                          recipientPair.getPublic())
                      .build(caSigner));
      var crlBuilder =
          new org.bouncycastle.cert.X509v2CRLBuilder(
              caName, java.util.Date.from(Instant.parse("2027-05-01T00:00:00Z")));
      crlBuilder.addCRLEntry(
          serial,
          java.util.Date.from(Instant.parse("2027-05-01T00:00:00Z")),
          org.bouncycastle.asn1.x509.CRLReason.keyCompromise);
      var crl =
          new org.bouncycastle.cert.jcajce.JcaX509CRLConverter().getCRL(crlBuilder.build(caSigner));
      return new ShortLived(
          new SigningKey(
              "short-lived",
              recipientPair.getPrivate(),
              List.of(certificate),
              recipient.provider()),
          crl);
    }
  }

  @Test
  void unpack_recipientCertificateExpiredNotYetValidOrRevoked_refusedNamingTheRecipient()
      throws Exception {
    ShortLived issued = ShortLived.issue();
    SigningKey shortLived = issued.key();
    var certificate = shortLived.certificate();
    java.math.BigInteger serial = certificate.getSerialNumber();
    byte[] envelope =
        RsfnFixture.goldenCodec(List.of())
            .pack(sender, certificate, RsfnFixture.payload(), Treatment.NORMAL);
    var local = ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding");

    Unpacked opened =
        new Protocol3(CaCodes.defaults(), List.of(), RsfnFixture.CLOCK, local)
            .unpack(shortLived, sender.certificate(), envelope);
    assertTrue(opened.ok(), "within its validity and with no CRL given it opens: " + opened);
    Unpacked expired =
        new Protocol3(
                CaCodes.defaults(),
                List.of(),
                InstantSource.fixed(Instant.parse("2028-06-01T00:00:00Z")),
                local)
            .unpack(shortLived, sender.certificate(), envelope);
    assertEquals(ErrorCode.EXPIRED_OR_REVOKED, expired.error(), expired.toString());
    assertEquals("the recipient certificate expired on 2027-12-31T00:00:00Z", expired.message());
    Unpacked early =
        new Protocol3(
                CaCodes.defaults(),
                List.of(),
                InstantSource.fixed(Instant.parse("2026-12-01T00:00:00Z")),
                local)
            .unpack(shortLived, sender.certificate(), envelope);
    assertEquals(ErrorCode.NOT_YET_VALID, early.error(), early.toString());
    assertEquals(
        "the recipient certificate is valid only from 2027-01-01T00:00:00Z", early.message());

    Unpacked revoked =
        new Protocol3(CaCodes.defaults(), List.of(issued.revoking()), RsfnFixture.CLOCK, local)
            .unpack(shortLived, sender.certificate(), envelope);
    assertEquals(ErrorCode.EXPIRED_OR_REVOKED, revoked.error(), revoked.toString());
    assertEquals(
        "the recipient certificate (serial " + SecurityHeader.serial(serial) + ") is revoked",
        revoked.message());
    assertEquals(
        List.of(
            "revocation of the sender certificate not checked: no CRL of "
                + sender.certificate().getIssuerX500Principal().getName()
                + " was given"),
        revoked.notes(),
        "the sender's CRL was not given, and that is said");
  }

  /**
   * A clear envelope (not encrypted) addressed to a recipient checks that recipient's certificate
   * as an encrypted one does: expired or revoked, it is refused naming the recipient, not opened
   * because nothing had to be decrypted.
   */
  @Test
  void unpack_clearEnvelopeToAnExpiredOrRevokedRecipient_refusedNamingTheRecipient()
      throws Exception {
    ShortLived issued = ShortLived.issue();
    byte[] clear =
        RsfnFixture.goldenCodec(List.of())
            .pack(sender, issued.key().certificate(), RsfnFixture.payload(), Treatment.CLEAR);
    var local = ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding");
    assertTrue(
        new Protocol3(CaCodes.defaults(), List.of(), RsfnFixture.CLOCK, local)
            .unpack(issued.key(), sender.certificate(), clear)
            .ok(),
        "within its validity it opens");
    Unpacked expired =
        new Protocol3(
                CaCodes.defaults(),
                List.of(),
                InstantSource.fixed(Instant.parse("2028-06-01T00:00:00Z")),
                local)
            .unpack(issued.key(), sender.certificate(), clear);
    assertEquals(ErrorCode.EXPIRED_OR_REVOKED, expired.error(), expired.toString());
    assertEquals("the recipient certificate expired on 2027-12-31T00:00:00Z", expired.message());
    Unpacked revoked =
        new Protocol3(CaCodes.defaults(), List.of(issued.revoking()), RsfnFixture.CLOCK, local)
            .unpack(issued.key(), sender.certificate(), clear);
    assertEquals(ErrorCode.EXPIRED_OR_REVOKED, revoked.error(), revoked.toString());
    assertEquals(
        "the recipient certificate (serial "
            + SecurityHeader.serial(issued.key().certificate().getSerialNumber())
            + ") is revoked",
        revoked.message());
  }

  /**
   * An encrypted envelope whose recipient fields were blanked (C06 0, C11 all zeros) still names
   * its recipient by being encrypted: it is refused by C06, not opened with the recipient checks
   * skipped.
   */
  @Test
  void unpack_encryptedEnvelopeNamingNoRecipient_refusedBy06() throws Exception {
    byte[] blanked = goldenEnvelope();
    blanked[6] = 0x00;
    System.arraycopy(
        SecurityHeader.noSerial().getBytes(StandardCharsets.US_ASCII), 0, blanked, 11, 32);
    Unpacked u =
        RsfnFixture.goldenCodec(List.of()).unpack(recipient, sender.certificate(), blanked);
    assertEquals(ErrorCode.RECIPIENT_KEY_ALGORITHM, u.error(), u.toString());
    assertEquals(
        "C06 is 0x00; the recipient's certificate has an RSA-2048 key (0x02 is RSA-2048)",
        u.message());
  }

  /**
   * The codec a key server builds over the test PKI checks every CA's CRL: a revoked signer is
   * refused, and no revocation goes unchecked.
   */
  @Test
  void forTestPki_revokedRecipientOfTheTestPki_refusedAndNothingLeftUnchecked() throws Exception {
    var pki =
        TestPki.init(
            dir.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
    var keys = new SoftwareKeySource(() -> pki, ProviderChoice.JDK);
    Protocol3 codec =
        Protocol3.forTestPki(
            pki,
            CaCodes.defaults(),
            InstantSource.system(),
            ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding"));
    SigningKey from = keys.key("signer-rsa2048-1"),
        to = keys.key("signer-rsa2048-2"),
        revokedKey = keys.key("signer-rsa2048-revoked");

    Unpacked opened =
        codec.unpack(
            to,
            from.certificate(),
            codec.pack(from, to.certificate(), RsfnFixture.payload(), Treatment.NORMAL));
    assertTrue(opened.ok(), opened.toString());
    assertEquals(List.of(), opened.notes(), "both parties' CRLs were given");
    Unpacked revoked =
        codec.unpack(
            revokedKey,
            from.certificate(),
            codec.pack(from, revokedKey.certificate(), RsfnFixture.payload(), Treatment.NORMAL));
    assertEquals(ErrorCode.EXPIRED_OR_REVOKED, revoked.error(), revoked.toString());
    assertEquals(
        "the recipient certificate (serial "
            + SecurityHeader.serial(revokedKey.certificate().getSerialNumber())
            + ") is revoked",
        revoked.message());
  }

  /**
   * A local provider with neither AES-GCM nor RSA (SUN) leaves the codec working through the
   * installed providers, not failing.
   */
  @Test
  void unpack_localProviderWithoutAesOrRsa_fallsBackToTheInstalledOnes() throws Exception {
    var sun = java.security.Security.getProvider("SUN");
    assertThrows(
        java.security.NoSuchAlgorithmException.class,
        () -> javax.crypto.Cipher.getInstance("AES/GCM/NoPadding", sun),
        "SUN has no AES-GCM");
    Protocol3 codec = new Protocol3(CaCodes.defaults(), List.of(), RsfnFixture.CLOCK, sun);
    Unpacked u =
        codec.unpack(
            recipient,
            sender.certificate(),
            codec.pack(sender, recipient.certificate(), RsfnFixture.payload(), Treatment.NORMAL));
    assertTrue(u.ok(), u.toString());
    assertArrayEquals(RsfnFixture.payload(), u.payload());
  }

  /**
   * A caller's slip (no sender certificate) is an answer, C03 0xFF (another error) naming the
   * cause, never an exception out of unpack.
   */
  @Test
  void unpack_noSenderCertificate_refusedAsOtherNotThrown() throws Exception {
    Unpacked u = RsfnFixture.goldenCodec(List.of()).unpack(recipient, null, goldenEnvelope());
    assertEquals(ErrorCode.OTHER, u.error(), u.toString());
    assertTrue(u.message().startsWith("unexpected: java.lang.NullPointerException"), u.message());
    assertEquals(0x03, u.header().version(), "the header was read before the slip, and is kept");
  }

  /**
   * Edges the field tampers miss: C07 zeroed on an encrypted envelope (zero is allowed only when
   * nothing is encrypted), a C11 serial that is not text (said as such, not echoed), and a
   * broadcast opened by a party whose own certificate has expired (a broadcast has no recipient to
   * check).
   */
  @Test
  void unpack_c07ZeroOnEncrypted_c11NotText_broadcastIgnoresTheOpenersCertificate()
      throws Exception {
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    byte[] envelope = goldenEnvelope();
    byte[] noCipher = envelope.clone();
    noCipher[7] = 0x00;
    Unpacked u = codec.unpack(recipient, sender.certificate(), noCipher);
    assertEquals(ErrorCode.SYMMETRIC_ALGORITHM, u.error(), u.toString());
    assertEquals("C07 is 0x00; protocol 3 encrypts with AES-256 (0x02)", u.message());

    byte[] binarySerial = envelope.clone();
    binarySerial[11 + 31] = 0x01;
    u = codec.unpack(recipient, sender.certificate(), binarySerial);
    assertEquals(ErrorCode.RECIPIENT_SERIAL, u.error(), u.toString());
    assertEquals(
        "C11 is (not text); the recipient certificate's serial is 00000000000000000123456789ABCDEF",
        u.message());
    byte[] textSerial = envelope.clone();
    textSerial[11 + 31] = 'E';
    assertEquals(
        "C11 is 00000000000000000123456789ABCDEE; the recipient certificate's serial is 00000000000000000123456789ABCDEF",
        codec.unpack(recipient, sender.certificate(), textSerial).message());
    for (byte edge : new byte[] {0x1F, 0x7F}) { // just outside printable ASCII at either end
      textSerial[11 + 31] = edge;
      assertTrue(
          codec
              .unpack(recipient, sender.certificate(), textSerial)
              .message()
              .startsWith("C11 is (not text);"),
          "byte " + edge);
    }
    textSerial[11 + 31] = ' ';
    assertTrue(
        codec
            .unpack(recipient, sender.certificate(), textSerial)
            .message()
            .startsWith("C11 is 00000000000000000123456789ABCDE ;"),
        "a space is text");

    byte[] broadcast = codec.pack(sender, null, RsfnFixture.payload(), Treatment.BROADCAST);
    var later =
        new Protocol3(
            CaCodes.defaults(),
            List.of(),
            InstantSource.fixed(Instant.parse("2047-01-01T00:00:00Z")),
            ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding"));
    var expiredOpener =
        new SigningKey(
            "expired",
            recipient.privateKey(),
            List.of(
                TestCertificates.selfSigned(
                    "long expired",
                    Instant.parse("2020-01-01T00:00:00Z"),
                    Instant.parse("2021-01-01T00:00:00Z"))),
            recipient.provider());
    Unpacked opened =
        RsfnFixture.goldenCodec(List.of()).unpack(expiredOpener, sender.certificate(), broadcast);
    assertTrue(
        opened.ok(),
        "a broadcast opened by anyone: the opener's certificate is not the envelope's business: "
            + opened);
    assertEquals(
        ErrorCode.EXPIRED_OR_REVOKED,
        later.unpack(expiredOpener, sender.certificate(), broadcast).error(),
        "the sender's expiry still counts");
    byte[] serialOnly = broadcast.clone();
    serialOnly[11 + 31] =
        '1'; // C11 names a recipient while C06 stays 0: the envelope is still addressed
    Unpacked addressed = codec.unpack(null, sender.certificate(), serialOnly);
    assertEquals(ErrorCode.KEY_EXTRACTION, addressed.error(), addressed.toString());
  }

  @Test
  void unpack_certificateValidityAndRevocation_10And11() throws Exception {
    byte[] envelope = goldenEnvelope();
    var local = ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding");
    Unpacked expired =
        new Protocol3(
                CaCodes.defaults(),
                List.of(),
                InstantSource.fixed(Instant.parse("2047-01-01T00:00:00Z")),
                local)
            .unpack(recipient, sender.certificate(), envelope);
    assertEquals(ErrorCode.EXPIRED_OR_REVOKED, expired.error(), expired.toString());
    Unpacked early =
        new Protocol3(
                CaCodes.defaults(),
                List.of(),
                InstantSource.fixed(Instant.parse("2026-01-01T00:00:00Z")),
                local)
            .unpack(recipient, sender.certificate(), envelope);
    assertEquals(ErrorCode.NOT_YET_VALID, early.error(), early.toString());
    Unpacked revoked =
        new Protocol3(
                CaCodes.defaults(),
                List.of(RsfnFixture.crl("serpro-revoked.crl")),
                RsfnFixture.CLOCK,
                local)
            .unpack(recipient, sender.certificate(), envelope);
    assertEquals(ErrorCode.EXPIRED_OR_REVOKED, revoked.error(), revoked.toString());
    assertTrue(revoked.message().contains("revoked"), revoked.message());
    Unpacked checked =
        new Protocol3(
                CaCodes.defaults(),
                List.of(RsfnFixture.crl("serpro-empty.crl")),
                RsfnFixture.CLOCK,
                local)
            .unpack(recipient, sender.certificate(), envelope);
    assertTrue(checked.ok(), checked.toString());
    assertEquals(
        1,
        checked.notes().size(),
        "the sender's CRL was given, the recipient's was not: " + checked.notes());
    assertTrue(
        checked.notes().get(0).contains("recipient")
            && checked.notes().get(0).contains("not checked"),
        checked.notes().toString());
  }

  @Test
  void pack_jdkUnpack_accpAndBouncyCastle_andBack() throws Exception {
    // ACCP is asked for by name: where it does not load the test fails saying why, rather than
    // dropping it
    List<ProviderChoice> choices =
        List.of(ProviderChoice.JDK, TestProvider.requireAccp(), ProviderChoice.BC);
    for (ProviderChoice packer : choices) {
      for (ProviderChoice opener : choices) {
        Protocol3 p =
            new Protocol3(
                CaCodes.defaults(),
                List.of(),
                RsfnFixture.CLOCK,
                packer.providerFor("Cipher", "AES/GCM/NoPadding"));
        Protocol3 o =
            new Protocol3(
                CaCodes.defaults(),
                List.of(),
                RsfnFixture.CLOCK,
                opener.providerFor("Cipher", "AES/GCM/NoPadding"));
        byte[] envelope =
            p.pack(
                RsfnFixture.key("sender", packer),
                recipient.certificate(),
                RsfnFixture.payload(),
                Treatment.NORMAL);
        Unpacked u = o.unpack(RsfnFixture.key("recipient", opener), sender.certificate(), envelope);
        assertTrue(u.ok(), packer + " → " + opener + ": " + u);
        assertArrayEquals(RsfnFixture.payload(), u.payload());
      }
    }
  }

  @Test
  void pack_badParties_sayWhatIsWrong() throws Exception {
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    var noCode =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new Protocol3(
                        CaCodes.read(writeCodes("0x33 = nothing matches this")),
                        List.of(),
                        RsfnFixture.CLOCK,
                        ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding"))
                    .pack(
                        sender,
                        java.util.Objects.requireNonNull(ecCertificate()),
                        RsfnFixture.payload(),
                        Treatment.NORMAL));
    assertTrue(noCode.getMessage().contains("RSA-2048"), noCode.getMessage());
    var empty =
        assertThrows(
            IllegalArgumentException.class,
            () -> codec.pack(sender, recipient.certificate(), new byte[0], Treatment.NORMAL));
    assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
    var noRecipient =
        assertThrows(
            IllegalArgumentException.class,
            () -> codec.pack(sender, null, RsfnFixture.payload(), Treatment.NORMAL));
    assertTrue(noRecipient.getMessage().contains("recipient"), noRecipient.getMessage());
    var bad =
        assertThrows(
            IllegalArgumentException.class,
            () -> CaCodes.read(writeCodes("0x1FF = too big\nnonsense")));
    assertTrue(
        bad.getMessage().contains("line 1") && bad.getMessage().contains("line 2"),
        "every bad line at once: " + bad.getMessage());
    CaCodes custom = CaCodes.read(writeCodes("# ours first\n0x33 = CN=AC SERPRO Teste"));
    assertEquals(
        0x33,
        custom.codeOf(sender.certificate().getIssuerX500Principal()),
        "a file's rule comes before the defaults");
    assertEquals(
        0x02,
        custom.codeOf(recipient.certificate().getIssuerX500Principal()),
        "the defaults still follow");
  }

  private Path writeCodes(String text) throws Exception {
    Path f = Files.createTempFile(dir, "codes", ".txt");
    Files.writeString(f, text);
    return f;
  }

  private static java.security.cert.X509Certificate ecCertificate() throws Exception {
    var pair = java.security.KeyPairGenerator.getInstance("EC").generateKeyPair();
    var name = new org.bouncycastle.asn1.x500.X500Name("CN=AC SERPRO EC");
    var builder =
        new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(
            name,
            java.math.BigInteger.TEN,
            java.util.Date.from(Instant.parse("2020-01-01T00:00:00Z")),
            java.util.Date.from(Instant.parse("2040-01-01T00:00:00Z")),
            name,
            pair.getPublic());
    return new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter()
        .getCertificate(
            builder.build(
                new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder("SHA256withECDSA")
                    .build(pair.getPrivate())));
  }

  /**
   * C15 signs the plaintext, not the header: C04 is not protected, and a change from 8 to 4 yields
   * the signed compressed bytes.
   */
  @Test
  void unpack_compressedTreatmentChangedTo4_yieldsTheSignedGzipBytes_theHeaderIsNotSigned()
      throws Exception {
    Protocol3 codec = RsfnFixture.goldenCodec(List.of());
    byte[] envelope =
        codec.pack(
            sender, recipient.certificate(), RsfnFixture.payload(), Treatment.FILE_COMPRESSED);
    envelope[4] = (byte) Treatment.FILE.code;
    Unpacked u = codec.unpack(recipient, sender.certificate(), envelope);
    assertTrue(u.ok(), u.toString());
    try (var gz =
        new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(u.payload()))) {
      assertArrayEquals(
          RsfnFixture.payload(),
          gz.readAllBytes(),
          "the bytes are the sender's, signed; only their form changed");
    }
  }

  @Test
  void unpack_gzipBombPastTheLimit_refusedWith12() throws Exception {
    Protocol3 packer = RsfnFixture.goldenCodec(List.of());
    byte[] zeros = new byte[8 << 20];
    byte[] envelope =
        packer.pack(sender, recipient.certificate(), zeros, Treatment.FILE_COMPRESSED);
    assertTrue(envelope.length < 100_000, "8 MiB of zeros compress to " + envelope.length);
    Protocol3 small =
        new Protocol3(
            CaCodes.defaults(),
            List.of(),
            RsfnFixture.CLOCK,
            ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding"),
            new SecureRandom(),
            1 << 20);
    Unpacked u = small.unpack(recipient, sender.certificate(), envelope);
    assertEquals(ErrorCode.SOFTWARE, u.error(), u.toString());
    assertTrue(u.message().contains("limit"), u.message());
  }

  /**
   * The limit is on what the payload decompresses to: exactly the limit opens, one byte more is
   * refused.
   */
  @Test
  void unpack_compressedPayloadExactlyAtTheLimitOpens_oneByteMoreRefused() throws Exception {
    int limit = 4096;
    Protocol3 packer = RsfnFixture.goldenCodec(List.of());
    Protocol3 small =
        new Protocol3(
            CaCodes.defaults(),
            List.of(),
            RsfnFixture.CLOCK,
            ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding"),
            new SecureRandom(),
            limit);
    byte[] atLimit =
        packer.pack(
            sender, recipient.certificate(), new byte[limit], Treatment.FILE_COMPRESSED_CLEAR);
    Unpacked ok = small.unpack(recipient, sender.certificate(), atLimit);
    assertTrue(ok.ok(), ok.toString());
    assertEquals(limit, ok.payload().length);
    Unpacked past =
        small.unpack(
            recipient,
            sender.certificate(),
            packer.pack(
                sender,
                recipient.certificate(),
                new byte[limit + 1],
                Treatment.FILE_COMPRESSED_CLEAR));
    assertEquals(ErrorCode.SOFTWARE, past.error(), past.toString());
  }

  @Test
  void unpack_fuzzShortRun_nothingEscapesAndNothingForgedIsAccepted() throws Exception {
    Protocol3Fuzz.Outcome o = Protocol3Fuzz.run(3000, 7);
    assertNull(o.violation(), o.violation());
    assertEquals(3000, o.inputs());
    long refused = Arrays.stream(o.refusedByCode()).sum();
    assertEquals(3000, o.accepted() + o.compressedForm() + refused, "every input answered once");
    assertTrue(
        o.refusedByCode()[ErrorCode.HEADER_LENGTH.code] > 0
            && o.refusedByCode()[ErrorCode.SYMMETRIC.code] > 0,
        "mutations reach both the header and the ciphertext: "
            + Arrays.toString(o.refusedByCode()));
  }
}
