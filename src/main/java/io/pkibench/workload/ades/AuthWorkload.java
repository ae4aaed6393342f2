package io.pkibench.workload.ades;

import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.keys.SigningKey;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Certificate login as a signing service does it: the server issues a nonce, the client signs it
 * with its key (the key source), the server checks the signature and validates the certificate path
 * to the test PKI's root with revocation. {@code revocation=crl}: CRLs read once (what a server
 * with a warm CRL cache does); {@code crl-fetch}: every validation downloads the CRLs from the
 * certificates' distribution points (run {@code pkibench serve crl}), the cost the original study
 * said its single certificate hid; {@code ocsp}: every validation asks the OCSP responder the
 * certificates name (also {@code serve crl}).
 */
public final class AuthWorkload implements Workload {
  private final List<SigningKey> signers;
  private final CertificateLogin server;

  private AuthWorkload(List<SigningKey> signers, CertificateLogin server) {
    this.signers = signers;
    this.server = server;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "auth";
    }

    @Override
    public String description() {
      return "certificate login: nonce, client signature, server checks signature, path and revocation (CRL or OCSP)";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          Signers.ALG,
          Signers.CERTS,
          ParamSpec.choice("revocation", "crl", "CRLs read once from the test PKI (crl), fetched from their distribution points on every"
              + " login (crl-fetch), or OCSP to the responder each certificate names (ocsp); serve crl answers both", CertificateLogin.Revocation.flags()));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      return new AuthWorkload(Signers.of(context, params), CertificateLogin.of(context.pki().get(), CertificateLogin.Revocation.parse(params.get("revocation"))));
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    SplittableRandom random = new SplittableRandom(worker);
    byte[] nonce = new byte[32];
    int[] turn = {worker};
    return () -> {
      random.nextBytes(nonce); // the server's challenge
      SigningKey client = signers.get(turn[0]++ % signers.size());
      String algorithm = KeyAlgorithm.signatureAlgorithmFor(client.privateKey());
      Signature sign = Signature.getInstance(algorithm, client.provider());
      sign.initSign(client.privateKey());
      sign.update(nonce);
      byte[] response = sign.sign();
      // The server's side: only the certificates and the signature reach it.
      server.login(nonce, response, algorithm, client.chain());
    };
  }

  /** The server's side, as the tests call it. */
  void login(byte[] nonce, byte[] response, String algorithm, List<X509Certificate> chain) throws Exception {
    server.login(nonce, response, algorithm, chain);
  }
}
