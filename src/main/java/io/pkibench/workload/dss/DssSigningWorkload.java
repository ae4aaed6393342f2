package io.pkibench.workload.dss;

import eu.europa.esig.dss.enumerations.DigestAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureLevel;
import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.ws.dto.RemoteCertificate;
import eu.europa.esig.dss.ws.dto.RemoteDocument;
import eu.europa.esig.dss.ws.dto.SignatureValueDTO;
import eu.europa.esig.dss.ws.dto.ToBeSignedDTO;
import eu.europa.esig.dss.ws.signature.dto.DataToSignOneDocumentDTO;
import eu.europa.esig.dss.ws.signature.dto.SignOneDocumentDTO;
import eu.europa.esig.dss.ws.signature.dto.parameters.RemoteBLevelParameters;
import eu.europa.esig.dss.ws.signature.dto.parameters.RemoteSignatureParameters;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.SamplePdf;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.ades.Signers;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifySample;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.IOException;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A signature through DSS's one-document REST service, as DSS publishes it: {@code getDataToSign}
 * with the document and the parameters (level, packaging, the signer's chain, the signing date),
 * the returned bytes signed here with the key from {@code --keys} (wherever it lives), then {@code
 * signDocument} with the same parameters and the signature value; the signed document comes back
 * ({@code --verify}: checked by our independent verifiers).
 */
public final class DssSigningWorkload implements Workload {
  private final TwoPhaseSigner.Format format;
  private final DssClient client;
  private final List<SigningKey> signers;
  private final List<List<RemoteCertificate>> chains = new ArrayList<>();
  private final RemoteDocument document;
  private final byte[] content;
  private final SignaturePackaging packaging;
  private final boolean verify;

  /** Each worker's choice of which answers it checks ({@code --verify-sample}). */
  private final IntFunction<VerifySample> sampling;

  private final X509Certificate tsaTrustAnchor;
  private final InstantSource clock;

  private DssSigningWorkload(
      TwoPhaseSigner.Format format,
      DssClient client,
      List<SigningKey> signers,
      byte[] content,
      SignaturePackaging packaging,
      WorkloadContext context)
      throws Exception {
    this.format = format;
    this.client = client;
    this.signers = signers;
    this.content = content;
    this.document = new RemoteDocument(content, name(format));
    this.packaging = packaging;
    this.verify = context.verify();
    this.sampling = context::verifySample;
    this.tsaTrustAnchor = context.verify() ? Signers.tsaTrustAnchor(context) : null;
    this.clock = context.clock();
    for (SigningKey key : signers) {
      List<RemoteCertificate> chain = new ArrayList<>();
      for (X509Certificate c : key.chain()) chain.add(new RemoteCertificate(c.getEncoded()));
      chains.add(List.copyOf(chain));
    }
  }

  /** {@code kind}: cades, cades-t, pades, pades-t or xades. */
  public static final class Factory implements WorkloadFactory {
    private final TwoPhaseSigner.Format format;

    public Factory(String kind) {
      this.format = TwoPhaseSigner.Format.parse(kind);
    }

    @Override
    public String name() {
      return "dss:" + format.flag;
    }

    @Override
    public String description() {
      return format.flag
          + " through EU DSS's REST API at --target (getDataToSign, sign locally with --keys, signDocument)";
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> params =
          new ArrayList<>(
              List.of(DssWorkloads.TARGET, DssWorkloads.TRUST, Signers.ALG, Signers.CERTS));
      if (format != TwoPhaseSigner.Format.PADES && format != TwoPhaseSigner.Format.PADES_T) {
        params.add(ParamSpec.free("size", isCades() ? "137k" : "4k", "bytes of the document"));
      }
      if (isCades()) {
        params.add(
            ParamSpec.choice(
                "packaging",
                "detached",
                "CMS with or without the document",
                "detached",
                "enveloping"));
        // as http:cades: the Rest PKI study signs one document throughout, so CAdES on either
        // service signs the PAdES types' PDF
        params.add(
            ParamSpec.choice(
                "document",
                "random",
                "what is signed: -p size random bytes, or pdf: the 137 KB sample PDF the PAdES types sign"
                    + " (the Rest PKI study signed one PDF throughout)",
                "random",
                "pdf"));
      }
      return params;
    }

    private boolean isCades() {
      return format == TwoPhaseSigner.Format.CADES || format == TwoPhaseSigner.Format.CADES_T;
    }

    @Override
    public List<String> problems(Params params, String keys) {
      return DssWorkloads.problems(params);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      List<SigningKey> signers = Signers.of(context, params);
      boolean sized = params.asMap().containsKey("size");
      boolean pdf = isCades() && params.get("document").equals("pdf");
      byte[] content =
          pdf
              ? SamplePdf.generate()
              : AdesChecks.sampleDocument(format, sized ? params.bytes("size") : 0);
      SignaturePackaging packaging =
          switch (format) {
            case CADES, CADES_T ->
                params.get("packaging").equals("enveloping")
                    ? SignaturePackaging.ENVELOPING
                    : SignaturePackaging.DETACHED;
            case PADES, PADES_T, XADES -> SignaturePackaging.ENVELOPED;
          };
      DssClient client = DssWorkloads.client(context, params);
      return new DssSigningWorkload(format, client, signers, content, packaging, context);
    }
  }

  static SignatureLevel level(TwoPhaseSigner.Format format) {
    return switch (format) {
      case CADES -> SignatureLevel.CAdES_BASELINE_B;
      case CADES_T -> SignatureLevel.CAdES_BASELINE_T;
      case PADES -> SignatureLevel.PAdES_BASELINE_B;
      case PADES_T -> SignatureLevel.PAdES_BASELINE_T;
      case XADES -> SignatureLevel.XAdES_BASELINE_B;
    };
  }

  private static String name(TwoPhaseSigner.Format format) {
    return switch (format) {
      case CADES, CADES_T -> "document.bin";
      case PADES, PADES_T -> "document.pdf";
      case XADES -> "document.xml";
    };
  }

  @Override
  public Operation newOperation(int worker) {
    int[] turn = {worker};
    if (!verify) return () -> sign(turn[0]++ % signers.size());
    // Under --verify each answer DSS gives (one in --verify-sample) is checked: ok counts them
    VerifySample sample = sampling.apply(worker);
    return (CheckedOperation)
        () -> {
          int index = turn[0]++ % signers.size();
          byte[] signed = sign(index);
          if (!sample.next()) return false;
          check(index, signed);
          return true;
        };
  }

  /**
   * One signature by the first signer, outside a run: what {@code --save-samples} keeps of DSS's
   * output.
   */
  public byte[] signOnce() throws Exception {
    byte[] signed = sign(0);
    if (verify) check(0, signed);
    return signed;
  }

  /**
   * DSS's answer checked against the document sent and the signer's key (the original bound to the
   * signature, as {@link AdesChecks} checks it); throws when it is not.
   */
  private void check(int index, byte[] signed) throws Exception {
    AdesChecks.check(format, signed, content, signers.get(index), tsaTrustAnchor);
  }

  /** One signature: both calls, the key's signature between them; the signed document's bytes. */
  byte[] sign(int index) throws Exception {
    SigningKey key = signers.get(index);
    RemoteSignatureParameters parameters = new RemoteSignatureParameters();
    parameters.setSignatureLevel(level(format));
    parameters.setSignaturePackaging(packaging);
    parameters.setDigestAlgorithm(DigestAlgorithm.SHA256);
    parameters.setSigningCertificate(chains.get(index).get(0));
    parameters.setCertificateChain(chains.get(index));
    RemoteBLevelParameters bLevel = new RemoteBLevelParameters();
    // The same date in both calls: DSS rebuilds the signed attributes from the parameters in
    // signDocument.
    bLevel.setSigningDate(Date.from(clock.instant()));
    parameters.setBLevelParams(bLevel);

    ToBeSignedDTO toSign =
        client.post(
            "signature/one-document/getDataToSign",
            new DataToSignOneDocumentDTO(document, parameters),
            ToBeSignedDTO.class);
    if (toSign.getBytes() == null) throw new IOException("getDataToSign answered no bytes to sign");
    SignatureAlgorithm algorithm =
        SignatureAlgorithm.forJAVA(KeyAlgorithm.signatureAlgorithmFor(key.publicKey()));
    Signature signer = Signature.getInstance(algorithm.getJCEId(), key.provider());
    signer.initSign(key.privateKey());
    signer.update(toSign.getBytes());
    RemoteDocument signed =
        client.post(
            "signature/one-document/signDocument",
            new SignOneDocumentDTO(
                document, parameters, new SignatureValueDTO(algorithm, signer.sign())),
            RemoteDocument.class);
    if (signed.getBytes() == null || signed.getBytes().length == 0)
      throw new IOException("signDocument answered no document");
    return signed.getBytes();
  }

  @Override
  public void close() {
    client.close();
  }
}
