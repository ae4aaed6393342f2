package io.pkibench.formats.rsfn;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;

/**
 * Fixed parties for golden RSFN vectors: a sender under "AC SERPRO Teste" (code 0x01, its key
 * PKCS#1) and a recipient under "AC Certisign Teste" (code 0x02, its key PKCS#8), made once with
 * openssl and kept as files beside this class; a clock inside their validity; a random source that
 * repeats itself.
 */
final class RsfnFixture {
  static final Instant GOLDEN_TIME = Instant.parse("2027-06-01T00:00:00Z");
  static final InstantSource CLOCK = InstantSource.fixed(GOLDEN_TIME);

  private RsfnFixture() {}

  static byte[] resource(String name) throws Exception {
    try (InputStream in = RsfnFixture.class.getResourceAsStream(name)) {
      if (in == null) throw new IllegalStateException("missing test resource " + name);
      return in.readAllBytes();
    }
  }

  /** The resource copied into {@code dir}, for the command-line tools that take paths. */
  static Path file(Path dir, String name) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, resource(name));
    return p;
  }

  static X509Certificate certificate(String name) throws Exception {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new java.io.ByteArrayInputStream(resource(name)));
  }

  static X509CRL crl(String name) throws Exception {
    return (X509CRL)
        CertificateFactory.getInstance("X.509")
            .generateCRL(new java.io.ByteArrayInputStream(resource(name)));
  }

  /** {@code name}.key with {@code name}.pem, the key made inside {@code choice}'s provider. */
  static SigningKey key(String name, ProviderChoice choice) throws Exception {
    Object pem;
    try (PEMParser parser =
        new PEMParser(
            new InputStreamReader(
                new java.io.ByteArrayInputStream(resource(name + ".key")),
                StandardCharsets.US_ASCII))) {
      pem = parser.readObject();
    }
    PrivateKeyInfo info =
        pem instanceof PEMKeyPair pair ? pair.getPrivateKeyInfo() : (PrivateKeyInfo) pem;
    Provider provider = choice.providerFor("Signature", "SHA256withRSA");
    PrivateKey key;
    try {
      key =
          KeyFactory.getInstance("RSA", provider)
              .generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
    } catch (GeneralSecurityException e) {
      key =
          KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
    }
    return new SigningKey(name, key, List.of(certificate(name + ".pem")), provider);
  }

  /**
   * The same bytes for the same seed: SHA-256 of seed ‖ counter, block after block. Only golden
   * tests want this.
   */
  static final class RepeatingRandom extends SecureRandom {
    private final byte[] seed;
    private long counter;

    RepeatingRandom(String seed) {
      this.seed = seed.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void nextBytes(byte[] out) {
      try {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < out.length; i += 32) {
          sha.update(seed);
          sha.update(java.nio.ByteBuffer.allocate(8).putLong(counter++).array());
          byte[] block = sha.digest();
          System.arraycopy(block, 0, out, i, Math.min(32, out.length - i));
        }
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * The codec of the golden vectors: JDK provider (which takes the random source for RSA's
   * padding), repeating random, fixed clock.
   */
  static Protocol3 goldenCodec(List<X509CRL> crls) throws Exception {
    return new Protocol3(
        CaCodes.defaults(),
        crls,
        CLOCK,
        ProviderChoice.JDK.providerFor("Cipher", "AES/GCM/NoPadding"),
        new RepeatingRandom("rsfn golden"),
        Protocol3.DEFAULT_MAX_PAYLOAD_BYTES);
  }

  static byte[] payload() {
    return "<?xml version=\"1.0\"?><DOC><BCMSG><IdentdEmissor>00038166</IdentdEmissor><IdentdDestinatario>00000000</IdentdDestinatario>"
        .concat(
            "<NUOp>000381662027060100001</NUOp></BCMSG><SISMSG><STR0008><CodMsg>STR0008</CodMsg><VlrLanc>1500.00</VlrLanc></STR0008></SISMSG></DOC>")
        .getBytes(StandardCharsets.UTF_8);
  }
}
