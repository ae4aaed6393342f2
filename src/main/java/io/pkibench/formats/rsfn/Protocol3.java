package io.pkibench.formats.rsfn;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.TestPki;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import javax.security.auth.x500.X500Principal;

/**
 * RSFN security protocol 3 packaging and unpackaging (docs/studies/rsfn.md).
 *
 * <p>Pack: optional gzip (C04) → SHA256withRSA of the plaintext by the sender's key (C15) →
 * AES-256-GCM with a fresh key and 12-byte IV, 128-bit tag → RSA PKCS#1 v1.5 encryption of key ‖ IV
 * under the recipient's certificate (C14) → header ‖ ciphertext. Unpack reverses it and checks
 * every field, the certificates' validity and revocation (the CRLs given), answering any failure
 * with the C03 code; nothing throws out of {@link #unpack}.
 *
 * <p>The private-key operations go through each key's own provider (software, a PKCS#11 token, or
 * the key-server cluster's JCA provider), everything else through {@code local}. Thread-safe.
 */
public final class Protocol3 {
  static final int AES_KEY_BYTES = 32, IV_BYTES = 12, TAG_BITS = 128;

  /**
   * Largest payload packed or unpacked (after decompression): a small header cannot make a huge
   * allocation.
   */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 << 20;

  private final CaCodes caCodes;
  private final Map<X500Principal, X509CRL> crls = new HashMap<>();
  private final InstantSource clock;
  private final Provider local;
  private final SecureRandom random;
  private final int maxPayloadBytes;

  /**
   * {@code random} draws the AES key, the IV and RSA's padding; a fixed one makes envelopes
   * reproducible, which only golden tests want.
   */
  public Protocol3(
      CaCodes caCodes,
      Collection<X509CRL> crls,
      InstantSource clock,
      Provider local,
      SecureRandom random,
      int maxPayloadBytes) {
    this.caCodes = caCodes;
    for (X509CRL crl : crls) this.crls.put(crl.getIssuerX500Principal(), crl);
    this.clock = clock;
    this.local = local;
    this.random = random;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  public Protocol3(CaCodes caCodes, Collection<X509CRL> crls, InstantSource clock, Provider local) {
    this(caCodes, crls, clock, local, new SecureRandom(), DEFAULT_MAX_PAYLOAD_BYTES);
  }

  /** Checking revocation against every CRL of the test PKI. */
  public static Protocol3 forTestPki(
      TestPki pki, CaCodes caCodes, InstantSource clock, Provider local) {
    List<X509CRL> crls =
        pki.entities().stream().filter(Entity::isCa).map(e -> pki.crlOf(e.alias())).toList();
    return new Protocol3(caCodes, crls, clock, local);
  }

  /**
   * The envelope of {@code payload} from {@code sender} to {@code recipient} (null only for a
   * treatment that is not encrypted: a broadcast). Throws {@link IllegalArgumentException} naming
   * what the parties or payload lack (a key that is not RSA-2048, an issuer with no CA code).
   */
  public byte[] pack(
      SigningKey sender, X509Certificate recipient, byte[] payload, Treatment treatment)
      throws GeneralSecurityException, IOException {
    if (payload.length == 0)
      throw new IllegalArgumentException("nothing to pack: the payload is empty");
    if (payload.length > maxPayloadBytes)
      throw new IllegalArgumentException(
          "the payload is " + payload.length + " bytes; the limit is " + maxPayloadBytes);
    requireRsa2048(sender.certificate(), "the sender's");
    if (treatment.encrypted && recipient == null)
      throw new IllegalArgumentException(treatment.meaning + " needs the recipient's certificate");
    if (recipient != null) requireRsa2048(recipient, "the recipient's");
    byte[] plaintext = treatment.compressed ? gzip(payload) : payload;

    Signature signer = signature("SHA256withRSA", sender.provider());
    signer.initSign(sender.privateKey());
    signer.update(plaintext);
    byte[] signature = signer.sign();

    byte[] body = plaintext;
    byte[] wrapped = new byte[SecurityHeader.BLOCK];
    if (treatment.encrypted) {
      byte[] keyAndIv = new byte[AES_KEY_BYTES + IV_BYTES];
      random.nextBytes(keyAndIv);
      try {
        Cipher aes = cipher("AES/GCM/NoPadding");
        aes.init(
            Cipher.ENCRYPT_MODE,
            new SecretKeySpec(keyAndIv, 0, AES_KEY_BYTES, "AES"),
            new GCMParameterSpec(TAG_BITS, keyAndIv, AES_KEY_BYTES, IV_BYTES));
        body = aes.doFinal(plaintext);
        Cipher rsa = cipher("RSA/ECB/PKCS1Padding");
        rsa.init(Cipher.ENCRYPT_MODE, recipient.getPublicKey(), random);
        wrapped = leftPad(rsa.doFinal(keyAndIv), SecurityHeader.BLOCK);
      } finally {
        Arrays.fill(keyAndIv, (byte) 0);
      }
    }
    SecurityHeader header =
        new SecurityHeader(
            SecurityHeader.LENGTH,
            SecurityHeader.VERSION_3,
            ErrorCode.OK.code,
            treatment.code,
            0,
            recipient == null ? 0 : SecurityHeader.RSA_2048,
            treatment.encrypted ? SecurityHeader.AES_256 : 0,
            SecurityHeader.RSA_2048,
            SecurityHeader.SHA_256,
            recipient == null ? 0 : caCodes.codeOf(recipient.getIssuerX500Principal()),
            recipient == null
                ? SecurityHeader.noSerial()
                : SecurityHeader.serial(recipient.getSerialNumber()),
            caCodes.codeOf(sender.certificate().getIssuerX500Principal()),
            SecurityHeader.serial(sender.certificate().getSerialNumber()),
            wrapped,
            leftPad(signature, SecurityHeader.BLOCK));
    byte[] envelope = new byte[SecurityHeader.LENGTH + body.length];
    System.arraycopy(header.encode(), 0, envelope, 0, SecurityHeader.LENGTH);
    System.arraycopy(body, 0, envelope, SecurityHeader.LENGTH, body.length);
    return envelope;
  }

  /** A refusal: the C03 code and why. */
  private static final class Refusal extends Exception {
    final ErrorCode code;

    Refusal(ErrorCode code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }

  /**
   * Unpacks {@code envelope} sent by {@code sender} to {@code recipient} (whose private key opens
   * it; it may be null for an envelope that is not encrypted). Every failure is an {@link Unpacked}
   * with the C03 code; no exception escapes.
   */
  public Unpacked unpack(SigningKey recipient, X509Certificate sender, byte[] envelope) {
    List<String> notes = new ArrayList<>();
    SecurityHeader header = null;
    try {
      if (envelope.length < SecurityHeader.LENGTH) {
        throw new Refusal(
            ErrorCode.HEADER_LENGTH,
            "the envelope has " + envelope.length + " bytes, fewer than the 588 of a header");
      }
      header = SecurityHeader.decode(envelope);
      return Unpacked.accepted(header, open(header, envelope, recipient, sender, notes), notes);
    } catch (Refusal r) {
      return Unpacked.refused(r.code, r.getMessage(), header, notes);
    } catch (Exception | OutOfMemoryError | StackOverflowError e) {
      return Unpacked.refused(ErrorCode.OTHER, "unexpected: " + e, header, notes);
    }
  }

  private byte[] open(
      SecurityHeader h,
      byte[] envelope,
      SigningKey recipient,
      X509Certificate sender,
      List<String> notes)
      throws Refusal {
    if (h.length() != SecurityHeader.LENGTH)
      throw new Refusal(
          ErrorCode.HEADER_LENGTH, "C01 says " + h.length() + "; protocol 3's header is 588 bytes");
    if (h.version() != SecurityHeader.VERSION_3)
      throw new Refusal(
          ErrorCode.VERSION,
          String.format("C02 is 0x%02X; this is protocol 3 (0x03)", h.version()));
    Treatment treatment = Treatment.of(h.treatment());
    if (treatment == null)
      throw new Refusal(
          ErrorCode.SPECIAL_TREATMENT,
          "C04 is " + h.treatment() + ", not a special treatment of protocol 3");
    if (h.reserved() != 0)
      throw new Refusal(
          ErrorCode.SPECIAL_TREATMENT, "C05 (reserved) is " + h.reserved() + ", not 0");
    if (h.errorCode() != 0) {
      throw new Refusal(
          ErrorCode.OTHER,
          String.format(
              "C03 is 0x%02X: this is an error answer, not an envelope to open", h.errorCode()));
    }
    X509Certificate recipientCert = recipient == null ? null : recipient.certificate();
    // An encrypted envelope is addressed whatever its recipient fields say: one that names no
    // recipient is refused by C06, never opened unchecked.
    boolean addressed =
        treatment.encrypted
            || h.recipientKey() != 0
            || !h.recipientSerial().equals(SecurityHeader.noSerial());
    if (addressed) {
      if (recipientCert == null)
        throw new Refusal(
            ErrorCode.KEY_EXTRACTION,
            "the envelope is addressed to a recipient; give the recipient's key");
      if (h.recipientKey() != SecurityHeader.RSA_2048 || keyBits(recipientCert) != 2048) {
        throw new Refusal(
            ErrorCode.RECIPIENT_KEY_ALGORITHM,
            String.format(
                "C06 is 0x%02X; the recipient's certificate has an RSA-%d key (0x02 is RSA-2048)",
                h.recipientKey(), keyBits(recipientCert)));
      }
    }
    if (treatment.encrypted
        ? h.symmetric() != SecurityHeader.AES_256
        : h.symmetric() != 0 && h.symmetric() != SecurityHeader.AES_256) {
      throw new Refusal(
          ErrorCode.SYMMETRIC_ALGORITHM,
          String.format("C07 is 0x%02X; protocol 3 encrypts with AES-256 (0x02)", h.symmetric()));
    }
    if (h.senderKey() != SecurityHeader.RSA_2048 || keyBits(sender) != 2048) {
      throw new Refusal(
          ErrorCode.SENDER_KEY_ALGORITHM,
          String.format(
              "C08 is 0x%02X; the sender's certificate has an RSA-%d key (0x02 is RSA-2048)",
              h.senderKey(), keyBits(sender)));
    }
    String signatureAlgorithm =
        switch (h.hash()) {
          case SecurityHeader.SHA_256 -> "SHA256withRSA";
          case SecurityHeader.SHA_1 -> "SHA1withRSA";
          default ->
              throw new Refusal(
                  ErrorCode.HASH_ALGORITHM,
                  String.format("C09 is 0x%02X; use 0x03 (SHA-256) or 0x02 (SHA-1)", h.hash()));
        };
    if (addressed) {
      checkCa(h.recipientCa(), recipientCert, ErrorCode.RECIPIENT_CA, "C10", "recipient");
      checkSerial(
          h.recipientSerial(), recipientCert, ErrorCode.RECIPIENT_SERIAL, "C11", "recipient");
    }
    checkCa(h.senderCa(), sender, ErrorCode.SENDER_CA, "C12", "sender");
    checkSerial(h.senderSerial(), sender, ErrorCode.SENDER_SERIAL, "C13", "sender");
    checkStatus(sender, "sender", notes);
    if (addressed)
      checkStatus(
          recipientCert,
          "recipient",
          notes); // not null: an addressed envelope without the recipient's key was refused above

    int bodyLength = envelope.length - SecurityHeader.LENGTH;
    if (bodyLength == 0)
      throw new Refusal(ErrorCode.PAYLOAD_LENGTH, "the envelope has a header and no payload");
    byte[] plaintext;
    if (treatment.encrypted) {
      byte[] keyAndIv = extractKey(h, recipient);
      try {
        if (bodyLength < TAG_BITS / 8)
          throw new Refusal(
              ErrorCode.BLOCK_LENGTH,
              "the ciphertext (" + bodyLength + " bytes) is shorter than GCM's 16-byte tag");
        Cipher aes = cipher("AES/GCM/NoPadding");
        aes.init(
            Cipher.DECRYPT_MODE,
            new SecretKeySpec(keyAndIv, 0, AES_KEY_BYTES, "AES"),
            new GCMParameterSpec(TAG_BITS, keyAndIv, AES_KEY_BYTES, IV_BYTES));
        plaintext = aes.doFinal(envelope, SecurityHeader.LENGTH, bodyLength);
      } catch (AEADBadTagException e) {
        throw new Refusal(
            ErrorCode.SYMMETRIC,
            "AES-256-GCM: the tag does not match (the ciphertext, key or IV was changed)");
      } catch (GeneralSecurityException e) {
        throw new Refusal(ErrorCode.SYMMETRIC, "AES-256-GCM: " + e.getMessage());
      } finally {
        Arrays.fill(keyAndIv, (byte) 0);
      }
    } else {
      if (!SecurityHeader.isZero(h.wrappedKey()))
        throw new Refusal(
            ErrorCode.KEY_EXTRACTION,
            "C14 holds a key, but C04 " + h.treatment() + " says not encrypted");
      plaintext = Arrays.copyOfRange(envelope, SecurityHeader.LENGTH, envelope.length);
    }
    try {
      Signature verifier = signature(signatureAlgorithm, local);
      verifier.initVerify(sender.getPublicKey());
      verifier.update(plaintext);
      if (!verifier.verify(h.signature()))
        throw new Refusal(
            ErrorCode.SIGNATURE,
            "C15 does not verify over the plaintext with the sender's certificate");
    } catch (GeneralSecurityException e) {
      throw new Refusal(ErrorCode.SIGNATURE, "C15 does not verify: " + e.getMessage());
    }
    return treatment.compressed ? gunzip(plaintext) : plaintext;
  }

  private byte[] extractKey(SecurityHeader h, SigningKey recipient) throws Refusal {
    byte[] keyAndIv;
    try {
      Cipher rsa;
      try {
        rsa = Cipher.getInstance("RSA/ECB/PKCS1Padding", recipient.provider());
        rsa.init(Cipher.DECRYPT_MODE, recipient.privateKey());
      } catch (NoSuchAlgorithmException | NoSuchPaddingException | InvalidKeyException e) {
        rsa =
            Cipher.getInstance(
                "RSA/ECB/PKCS1Padding"); // the first installed provider that takes this key
        rsa.init(Cipher.DECRYPT_MODE, recipient.privateKey());
      }
      keyAndIv = rsa.doFinal(h.wrappedKey());
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new Refusal(
          ErrorCode.KEY_EXTRACTION,
          "C14 does not decrypt with the recipient's key: " + e.getMessage());
    }
    if (keyAndIv.length != AES_KEY_BYTES + IV_BYTES) {
      throw new Refusal(
          ErrorCode.KEY_EXTRACTION,
          "C14 holds " + keyAndIv.length + " bytes; AES-256 key and IV are 44");
    }
    return keyAndIv;
  }

  private void checkCa(int code, X509Certificate cert, ErrorCode error, String field, String who)
      throws Refusal {
    int expected;
    try {
      expected = caCodes.codeOf(cert.getIssuerX500Principal());
    } catch (IllegalArgumentException e) {
      throw new Refusal(error, field + ": " + e.getMessage());
    }
    if (code != expected)
      throw new Refusal(
          error,
          String.format(
              "%s is 0x%02X; the %s certificate's CA code is 0x%02X", field, code, who, expected));
  }

  private static void checkSerial(
      String serial, X509Certificate cert, ErrorCode error, String field, String who)
      throws Refusal {
    String expected = SecurityHeader.serial(cert.getSerialNumber());
    if (!serial.equals(expected))
      throw new Refusal(
          error,
          field
              + " is "
              + printable(serial)
              + "; the "
              + who
              + " certificate's serial is "
              + expected);
  }

  private void checkStatus(X509Certificate cert, String who, List<String> notes) throws Refusal {
    Date now = Date.from(clock.instant());
    try {
      cert.checkValidity(now);
    } catch (CertificateExpiredException e) {
      throw new Refusal(
          ErrorCode.EXPIRED_OR_REVOKED,
          "the " + who + " certificate expired on " + cert.getNotAfter().toInstant());
    } catch (CertificateNotYetValidException e) {
      throw new Refusal(
          ErrorCode.NOT_YET_VALID,
          "the " + who + " certificate is valid only from " + cert.getNotBefore().toInstant());
    }
    X509CRL crl = crls.get(cert.getIssuerX500Principal());
    if (crl == null) {
      notes.add(
          "revocation of the "
              + who
              + " certificate not checked: no CRL of "
              + cert.getIssuerX500Principal().getName()
              + " was given");
    } else if (crl.isRevoked(cert)) {
      throw new Refusal(
          ErrorCode.EXPIRED_OR_REVOKED,
          "the "
              + who
              + " certificate (serial "
              + SecurityHeader.serial(cert.getSerialNumber())
              + ") is revoked");
    }
  }

  private static int keyBits(X509Certificate cert) {
    PublicKey key = cert.getPublicKey();
    return key instanceof RSAPublicKey rsa ? rsa.getModulus().bitLength() : 0;
  }

  private static void requireRsa2048(X509Certificate cert, String whose) {
    if (keyBits(cert) != 2048) {
      throw new IllegalArgumentException(
          whose
              + " certificate ("
              + cert.getSubjectX500Principal().getName()
              + ") has a "
              + cert.getPublicKey().getAlgorithm()
              + (keyBits(cert) > 0 ? "-" + keyBits(cert) : "")
              + " key; protocol 3 uses RSA-2048 keys");
    }
  }

  private Cipher cipher(String transformation) throws GeneralSecurityException {
    try {
      return Cipher.getInstance(transformation, local);
    } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
      return Cipher.getInstance(transformation);
    }
  }

  private static Signature signature(String algorithm, Provider provider)
      throws GeneralSecurityException {
    try {
      return Signature.getInstance(algorithm, provider);
    } catch (NoSuchAlgorithmException e) {
      return Signature.getInstance(algorithm);
    }
  }

  /**
   * An RSA output shorter than the modulus (leading zero bytes dropped) set back to its full width.
   */
  private static byte[] leftPad(byte[] value, int width) {
    if (value.length == width) return value;
    if (value.length > width)
      throw new IllegalArgumentException("an RSA-2048 value is 256 bytes, not " + value.length);
    byte[] padded = new byte[width];
    System.arraycopy(value, 0, padded, width - value.length, value.length);
    return padded;
  }

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(data.length / 2 + 64);
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }

  private byte[] gunzip(byte[] data) throws Refusal {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
      ByteArrayOutputStream out =
          new ByteArrayOutputStream(Math.min(maxPayloadBytes, data.length * 4 + 64));
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) > 0; ) {
        if (out.size() + n > maxPayloadBytes)
          throw new Refusal(
              ErrorCode.SOFTWARE,
              "the payload decompresses past the limit of " + maxPayloadBytes + " bytes");
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new Refusal(
          ErrorCode.SOFTWARE,
          "C04 says compressed, but the payload is not valid gzip: " + e.getMessage());
    }
  }

  private static String printable(String s) {
    return s.chars().allMatch(c -> c >= 0x20 && c < 0x7F) ? s : "(not text)";
  }
}
