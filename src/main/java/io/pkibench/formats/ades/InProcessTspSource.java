package io.pkibench.formats.ades;

import eu.europa.esig.dss.enumerations.DigestAlgorithm;
import eu.europa.esig.dss.model.DSSException;
import eu.europa.esig.dss.model.TimestampBinary;
import eu.europa.esig.dss.spi.x509.tsp.TSPSource;
import java.math.BigInteger;
import java.util.concurrent.ThreadLocalRandom;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponse;

/** DSS's time-stamp source backed by our TSA in this process: a full RFC 3161 request/response, no network. */
public final class InProcessTspSource implements TSPSource {
  private static final long serialVersionUID = 1L;
  private final transient TimeStampAuthority authority;

  public InProcessTspSource(TimeStampAuthority authority) {
    this.authority = authority;
  }

  @Override
  public TimestampBinary getTimeStampResponse(DigestAlgorithm digestAlgorithm, byte[] digest) {
    try {
      TimeStampRequestGenerator generator = new TimeStampRequestGenerator();
      generator.setCertReq(true);
      TimeStampRequest request = generator.generate(
          new ASN1ObjectIdentifier(digestAlgorithm.getOid()), digest, BigInteger.valueOf(ThreadLocalRandom.current().nextLong()));
      TimeStampResponse response = new TimeStampResponse(authority.respond(request.getEncoded()));
      response.validate(request);
      if (response.getTimeStampToken() == null) throw new DSSException("the TSA refused: " + response.getStatusString());
      return new TimestampBinary(response.getTimeStampToken().getEncoded());
    } catch (DSSException e) {
      throw e;
    } catch (Exception e) {
      throw new DSSException("time-stamp failed: " + e.getMessage(), e);
    }
  }
}
