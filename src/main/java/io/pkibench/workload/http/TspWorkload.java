package io.pkibench.workload.http;

import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.HttpTimeStampResponder;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.keys.PemKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.math.BigInteger;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;

/**
 * Any RFC 3161 TSA over HTTP ({@code --target}): each operation posts an
 * application/timestamp-query over the SHA-256 of fresh bytes, with a random nonce and certReq (and
 * {@code -p policy} when given), and checks the reply as {@link TimeStampCheck} does: granted,
 * nonce and imprint echoed, and the token's signature verified against {@code -p trust}. Without
 * trust the table says the tokens were not verified.
 */
public final class TspWorkload implements Workload {
  static final String NOT_VERIFIED =
      "tokens not verified: no -p trust given (a PEM file with the TSA's chain); status, nonce and imprint were checked";
  private final HttpTimeStampResponder tsa;
  private final TimeStampCheck check;
  private final ASN1ObjectIdentifier policy;
  private final int sizeBytes;

  private TspWorkload(
      HttpTimeStampResponder tsa,
      TimeStampCheck check,
      ASN1ObjectIdentifier policy,
      int sizeBytes) {
    this.tsa = tsa;
    this.check = check;
    this.policy = policy;
    this.sizeBytes = sizeBytes;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "tsp";
    }

    @Override
    public String description() {
      return "any RFC 3161 TSA at --target: SHA-256 query with nonce and certReq; granted, nonce, imprint and (-p trust) the token's signature checked";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free(
              ParamSpec.TARGET,
              "",
              "the TSA's URL, e.g. http://127.0.0.1:18318/tsa ('pkibench serve tsa') or http://tsa.example:318/"),
          ParamSpec.free(
              "trust",
              "",
              "PEM file with the TSA's chain (its root, or the TSA certificate itself): tokens are verified against it"),
          ParamSpec.free(
              "policy",
              "",
              "a TSA policy OID to ask for (reqPolicy), e.g. 0.4.0.2023.1.1; the token must carry it"),
          ParamSpec.free("size", "1k", "bytes hashed into each request's imprint"));
    }

    @Override
    public boolean usesKeys() {
      return false;
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      HttpTargets.problem(params.get(ParamSpec.TARGET)).ifPresent(problems::add);
      if (!params.get("trust").isBlank())
        HttpTargets.certificatesProblem("trust", params.get("trust")).ifPresent(problems::add);
      if (!params.get("policy").isBlank()
          && ASN1ObjectIdentifier.tryFromID(params.get("policy")) == null) {
        problems.add(
            "-p policy="
                + params.get("policy")
                + ": not an object identifier; write it dotted, e.g. 0.4.0.2023.1.1");
      }
      if (Params.parseBytes(params.get("size")) < 0)
        problems.add(
            "-p size=" + params.get("size") + ": write a size in bytes, like 1024, 137k or 1m");
      return problems;
    }

    @Override
    public List<String> notes(Params params) {
      return params.get("trust").isBlank() ? List.of(NOT_VERIFIED) : List.of();
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      CertificateTrust trust =
          params.get("trust").isBlank()
              ? null
              : CertificateTrust.of(
                  PemKeys.certificates(Files.readAllBytes(Path.of(params.get("trust")))));
      ASN1ObjectIdentifier policy =
          params.get("policy").isBlank() ? null : new ASN1ObjectIdentifier(params.get("policy"));
      return new TspWorkload(
          new HttpTimeStampResponder(URI.create(params.get(ParamSpec.TARGET))),
          new TimeStampCheck(trust),
          policy,
          params.bytes("size"));
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    // The nonce must be unpredictable to the TSA (it is what proves the reply is fresh), hence
    // SecureRandom; the bytes hashed need not be.
    SecureRandom nonces = new SecureRandom();
    SplittableRandom bytes = new SplittableRandom(worker);
    byte[] document = new byte[sizeBytes];
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    TimeStampRequestGenerator requests = new TimeStampRequestGenerator();
    requests.setCertReq(true);
    if (policy != null) requests.setReqPolicy(policy);
    return () -> {
      bytes.nextBytes(document);
      TimeStampRequest request =
          requests.generate(
              NISTObjectIdentifiers.id_sha256, sha256.digest(document), new BigInteger(63, nonces));
      check.check(request, tsa.respond(request.getEncoded()));
    };
  }

  @Override
  public void close() {
    tsa.close();
  }
}
