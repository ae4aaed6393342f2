package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.KeyAlgorithm;
import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.Date;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.cmp.PKIFailureInfo;
import org.bouncycastle.asn1.cmp.PKIStatus;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cms.SignerInfoGenerator;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.tsp.TSPException;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampResponseGenerator;
import org.bouncycastle.tsp.TimeStampTokenGenerator;

/**
 * An RFC 3161 time-stamping authority (BouncyCastle TSP) signing with the key a {@code KeySource}
 * holds for the test PKI's {@code tsa} certificate. Thread-safe: each answer builds its own
 * generator, since BouncyCastle's signers keep per-use state.
 */
public final class TimeStampAuthority implements TimeStampResponder {
  /** ETSI EN 319 421 best-practices time-stamp policy. */
  public static final ASN1ObjectIdentifier POLICY = new ASN1ObjectIdentifier("0.4.0.2023.1.1");

  /** Digest algorithms a request may use; others get a rejection response, as RFC 3161 says. */
  private static final Set<ASN1ObjectIdentifier> ACCEPTED =
      Set.of(
          NISTObjectIdentifiers.id_sha256,
          NISTObjectIdentifiers.id_sha384,
          NISTObjectIdentifiers.id_sha512);

  private final SigningKey key;
  private final JcaCertStore chain;
  private final InstantSource clock;
  private final AtomicLong serial = new AtomicLong();

  public TimeStampAuthority(SigningKey key, InstantSource clock) throws GeneralSecurityException {
    this.key = key;
    this.chain = new JcaCertStore(key.chain());
    this.clock = clock;
    // Serials must never repeat across restarts: start from the clock in microseconds.
    serial.set(clock.millis() * 1000);
  }

  public X509Certificate certificate() {
    return key.certificate();
  }

  /**
   * Answers a DER request with a DER response: a granted token, or a rejection that says why (never
   * an exception for bad input).
   */
  @Override
  public byte[] respond(byte[] requestDer) throws IOException {
    TimeStampRequest request;
    try {
      request = new TimeStampRequest(requestDer);
    } catch (IOException | RuntimeException e) {
      // BouncyCastle's ASN.1 parser reports malformed input with assorted runtime exceptions, whose
      // text names its classes: the client is told what is wrong in our words, not in the parser's.
      return reject(
          PKIFailureInfo.badDataFormat, "the request is not a DER-encoded RFC 3161 TimeStampReq");
    }
    try {
      TimeStampResponseGenerator responder =
          new TimeStampResponseGenerator(tokenGenerator(), ACCEPTED);
      Date now = Date.from(clock.instant());
      return responder
          .generateGrantedResponse(request, BigInteger.valueOf(serial.incrementAndGet()), now)
          .getEncoded();
    } catch (TSPException e) {
      return refusal(e);
    } catch (RuntimeException e) {
      // a request that parsed but whose parts do not (BouncyCastle reads lazily)
      return reject(
          PKIFailureInfo.badDataFormat, "the request is not a DER-encoded RFC 3161 TimeStampReq");
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("the TSA cannot sign: " + e.getMessage(), e);
    }
  }

  private TimeStampTokenGenerator tokenGenerator()
      throws GeneralSecurityException, OperatorCreationException, TSPException {
    String algorithm = KeyAlgorithm.signatureAlgorithmFor(key.privateKey());
    SignerInfoGenerator signer =
        new JcaSignerInfoGeneratorBuilder(new JcaDigestCalculatorProviderBuilder().build())
            .build(
                new JcaContentSignerBuilder(algorithm)
                    .setProvider(key.provider())
                    .build(key.privateKey()),
                key.certificate());
    TimeStampTokenGenerator generator =
        new TimeStampTokenGenerator(
            signer,
            new JcaDigestCalculatorProviderBuilder()
                .build()
                .get(new AlgorithmIdentifier(NISTObjectIdentifiers.id_sha256)),
            POLICY);
    generator.setAccuracySeconds(1);
    generator.addCertificates(chain);
    return generator;
  }

  /** What the generator refused the request for, said in RFC 3161's terms and ours. */
  private static byte[] refusal(TSPException e) throws IOException {
    String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    if (m.contains("algorithm")) {
      return reject(
          PKIFailureInfo.badAlg,
          "the message imprint's hash algorithm is not accepted; use SHA-256, SHA-384 or SHA-512");
    }
    if (m.contains("policy"))
      return reject(
          PKIFailureInfo.unacceptedPolicy, "this TSA issues tokens under its own policy only");
    if (m.contains("extension"))
      return reject(
          PKIFailureInfo.unacceptedExtension,
          "the request carries an extension this TSA does not accept");
    if (m.contains("imprint") || m.contains("length")) {
      return reject(
          PKIFailureInfo.badDataFormat,
          "the message imprint's length does not match its hash algorithm");
    }
    return reject(PKIFailureInfo.badRequest, "the request cannot be granted as it is");
  }

  private static byte[] reject(int failure, String why) throws IOException {
    try {
      return new TimeStampResponseGenerator(null, ACCEPTED)
          .generateFailResponse(PKIStatus.REJECTION, failure, why)
          .getEncoded();
    } catch (TSPException e) {
      throw new IOException(e);
    }
  }
}
