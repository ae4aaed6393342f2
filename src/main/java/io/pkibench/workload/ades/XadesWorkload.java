package io.pkibench.workload.ades;

import io.pkibench.formats.ades.SampleXml;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.formats.ades.XadesVerifier;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.util.List;

/**
 * {@code xades}: XAdES-B-B enveloped in a generated ISO 20022-style payment message of about {@code
 * size} bytes, two-phase through DSS. With {@code --verify}, the JDK's own XML signature API checks
 * every reference and the signature value, independently of DSS, and that a whole-document
 * reference covers the message sent.
 */
public final class XadesWorkload {
  private XadesWorkload() {}

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "xades";
    }

    @Override
    public String description() {
      return "XAdES-B-B (DSS + Santuario) enveloped in an ISO 20022-style XML message";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free("size", "4k", "approximate bytes of the XML message"),
          Signers.ALG,
          Signers.CERTS);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      return new AdesWorkload(
          TwoPhaseSigner.Format.XADES,
          Signers.of(context, params),
          SampleXml.generate(params.bytes("size")),
          "message.xml",
          null,
          null,
          null,
          context.verify()
              ? (signed, original, key) -> XadesVerifier.check(signed, original, key)
              : null,
          context.clock());
    }
  }
}
