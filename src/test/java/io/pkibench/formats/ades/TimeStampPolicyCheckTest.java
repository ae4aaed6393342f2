package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.tsp.TSPAlgorithms;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponseGenerator;
import org.bouncycastle.tsp.TimeStampTokenGenerator;
import org.junit.jupiter.api.Test;

/**
 * A token under another policy than the one the request asked for is refused by {@link
 * TimeStampCheck}, naming both; the same TSA's token under the asked policy is accepted.
 */
class TimeStampPolicyCheckTest {
  private static final ASN1ObjectIdentifier ASKED = new ASN1ObjectIdentifier("0.4.0.2023.1.1");
  private static final ASN1ObjectIdentifier OTHER = new ASN1ObjectIdentifier("1.2.3.4.5");
  private static final BigInteger NONCE = BigInteger.valueOf(0x5eed);

  @Test
  void tokenUnderAnotherPolicy_refusedNamingBoth_tokenUnderTheAskedOneAccepted() throws Exception {
    byte[] imprint = MessageDigest.getInstance("SHA-256").digest("document".getBytes());
    TimeStampRequest asking = request(imprint, ASKED);

    // BouncyCastle's generator takes the request's policy when it names one: a TSA that ignores it
    // is played by answering the same imprint and nonce asked without a policy, under its own
    byte[] underOther = reply(request(imprint, null), OTHER);
    var e = assertThrows(Exception.class, () -> new TimeStampCheck(null).check(asking, underOther));
    assertTrue(
        e.getMessage().contains("under policy " + OTHER)
            && e.getMessage().contains("not the requested " + ASKED),
        e.getMessage());

    byte[] underAsked = reply(asking, OTHER);
    assertEquals(
        ASKED, new TimeStampCheck(null).check(asking, underAsked).getTimeStampInfo().getPolicy());
  }

  private static TimeStampRequest request(byte[] imprint, ASN1ObjectIdentifier policy) {
    var generator = new TimeStampRequestGenerator();
    if (policy != null) generator.setReqPolicy(policy);
    return generator.generate(TSPAlgorithms.SHA256, imprint, NONCE);
  }

  private static byte[] reply(TimeStampRequest request, ASN1ObjectIdentifier tsaPolicy)
      throws Exception {
    KeyPairGenerator keys = KeyPairGenerator.getInstance("EC");
    keys.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = keys.generateKeyPair();
    Instant now = Instant.now();
    X500Principal name = new X500Principal("CN=Test TSA");
    var builder =
        new JcaX509v3CertificateBuilder(
            name,
            BigInteger.ONE,
            Date.from(now.minus(Duration.ofDays(1))),
            Date.from(now.plus(Duration.ofDays(1))),
            name,
            pair.getPublic());
    builder.addExtension(
        Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_timeStamping));
    X509Certificate tsa =
        new JcaX509CertificateConverter()
            .getCertificate(
                builder.build(
                    new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
    var digests = new JcaDigestCalculatorProviderBuilder().build();
    var tokens =
        new TimeStampTokenGenerator(
            new JcaSignerInfoGeneratorBuilder(digests)
                .build(
                    new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()), tsa),
            digests.get(new AlgorithmIdentifier(NISTObjectIdentifiers.id_sha256)),
            tsaPolicy);
    return new TimeStampResponseGenerator(tokens, TSPAlgorithms.ALLOWED)
        .generate(request, BigInteger.TWO, new Date())
        .getEncoded();
  }
}
