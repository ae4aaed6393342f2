package io.pkibench.formats.ades;

import eu.europa.esig.dss.enumerations.DigestAlgorithm;
import eu.europa.esig.dss.model.DSSException;
import eu.europa.esig.dss.model.TimestampBinary;
import eu.europa.esig.dss.spi.x509.tsp.TSPSource;
import java.io.IOException;
import java.math.BigInteger;
import java.security.SignatureException;
import java.util.concurrent.ThreadLocalRandom;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;

/**
 * DSS's time-stamp source backed by a {@link TimeStampResponder}: our TSA in this process (no
 * network) or one at a URL; a full RFC 3161 request with a nonce, the reply checked as {@link
 * TimeStampCheck} does.
 */
public final class ResponderTspSource implements TSPSource {
  private static final long serialVersionUID = 1L;
  private final transient TimeStampResponder responder;
  private final transient TimeStampCheck check;

  public ResponderTspSource(TimeStampResponder responder, TimeStampCheck check) {
    this.responder = responder;
    this.check = check;
  }

  @Override
  public TimestampBinary getTimeStampResponse(DigestAlgorithm digestAlgorithm, byte[] digest) {
    try {
      TimeStampRequestGenerator generator = new TimeStampRequestGenerator();
      generator.setCertReq(true);
      TimeStampRequest request =
          generator.generate(
              new ASN1ObjectIdentifier(digestAlgorithm.getOid()),
              digest,
              BigInteger.valueOf(ThreadLocalRandom.current().nextLong()));
      return new TimestampBinary(
          check.check(request, responder.respond(request.getEncoded())).getEncoded());
    } catch (IOException | SignatureException e) {
      // The cause kept: the table's sentence says a cause's words once, and a refused or timed-out
      // TSA is known by its class
      // (the JDK's client refuses with a ConnectException that has no message).
      throw new DSSException(
          e.getMessage() == null ? "time-stamp failed" : "time-stamp failed: " + e.getMessage(), e);
    } catch (Exception e) {
      throw new DSSException("time-stamp failed: " + e.getMessage(), e);
    }
  }
}
