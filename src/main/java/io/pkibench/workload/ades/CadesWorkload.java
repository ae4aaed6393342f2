package io.pkibench.workload.ades;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.CadesVerifier;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * {@code cades} (CAdES-B-B) and {@code cades-t} (CAdES-B-T, with an RFC 3161 signature time-stamp
 * from the in-process TSA) over {@code size} bytes, two-phase through DSS. With {@code --verify},
 * BouncyCastle checks the CMS signature independently of DSS, and at B-T its time-stamp token:
 * signature, TSA chain to the test PKI's root, imprint over the signature value.
 */
public final class CadesWorkload {
  private CadesWorkload() {}

  public static final class Factory extends LevelPairFactory {
    public Factory(boolean timestamped) {
      super(
          "cades",
          timestamped,
          "CAdES-B-B (DSS): getDataToSign, sign with the key source, signDocument",
          "CAdES-B-T (DSS): signature plus an RFC 3161 signature time-stamp from the in-process TSA");
    }

    @Override
    public List<ParamSpec> params() {
      return withTsa(
          List.of(
              ParamSpec.free("size", "137k", "bytes of the signed document"),
              ParamSpec.choice(
                  "packaging",
                  "detached",
                  "CMS with or without the document inside",
                  "detached",
                  "enveloping"),
              Signers.ALG,
              Signers.CERTS));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, params.bytes("size"));
      SignaturePackaging packaging =
          params.get("packaging").equals("detached")
              ? SignaturePackaging.DETACHED
              : SignaturePackaging.ENVELOPING;
      boolean t = timestamped();
      return new AdesWorkload(
          t ? TwoPhaseSigner.Format.CADES_T : TwoPhaseSigner.Format.CADES,
          Signers.of(context, params),
          content,
          "document.bin",
          packaging,
          t ? Signers.tsa(context, params) : null,
          t ? Signers.tsaCheck(params) : null,
          checker(context, params, t),
          context.clock());
    }

    private static AdesWorkload.Checker checker(
        WorkloadContext context, Params params, boolean timestamped) throws IOException {
      if (!context.verify()) return null;
      if (!timestamped) return CadesVerifier::check;
      X509Certificate anchor = Signers.tsaTrustAnchor(context, params);
      return (signed, original, key) ->
          CadesVerifier.checkTimestamped(signed, original, key, anchor);
    }
  }
}
