package io.pkibench.workload.ades;

import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.keys.SigningKey;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;

/**
 * One RFC 3161 round trip in this process: hash {@code size} bytes, build a request with a nonce,
 * have the TSA (the test PKI's {@code tsa} key, from the key source) answer, and verify the answer
 * against the request and the token's signature against the TSA certificate.
 */
public final class TimestampWorkload implements Workload {
  private final TimeStampAuthority authority;
  private final TimeStampCheck check;
  private final int sizeBytes;

  private TimestampWorkload(TimeStampAuthority authority, TimeStampCheck check, int sizeBytes) {
    this.authority = authority;
    this.check = check;
    this.sizeBytes = sizeBytes;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "timestamp";
    }

    @Override
    public String description() {
      return "RFC 3161: request over a SHA-256 digest, token from an in-process TSA, response and token verified";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free("size", "1024", "bytes of the document whose digest is time-stamped"));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      SigningKey tsa = context.keys().key("tsa");
      // The client's check is tsp's; the TSA's own certificate is what it trusts, as before (no
      // chain to build in-process).
      TimeStampCheck check = new TimeStampCheck(CertificateTrust.of(List.of(tsa.certificate())));
      return new TimestampWorkload(
          new TimeStampAuthority(tsa, context.clock()), check, params.bytes("size"));
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    SplittableRandom random = new SplittableRandom(worker);
    byte[] document = new byte[sizeBytes];
    random.nextBytes(document);
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    TimeStampRequestGenerator requests = new TimeStampRequestGenerator();
    requests.setCertReq(true);
    return () -> {
      byte[] digest = sha256.digest(document);
      TimeStampRequest request =
          requests.generate(
              NISTObjectIdentifiers.id_sha256, digest, BigInteger.valueOf(random.nextLong()));
      // status, nonce, imprint, then the signature, ESSCertIDv2 and the certificate's timeStamping
      // EKU
      check.check(request, authority.respond(request.getEncoded()));
    };
  }
}
