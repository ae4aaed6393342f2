package io.pkibench.workload.ades;

import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
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
          ParamSpec.choice(
              "revocation",
              "crl",
              "CRLs read once from the test PKI (crl), fetched from their distribution points on every"
                  + " login (crl-fetch), or OCSP to the responder each certificate names (ocsp); serve crl answers both",
              CertificateLogin.Revocation.flags()),
          ParamSpec.free(
              "ocsp",
              "",
              "with revocation=ocsp: an outside OCSP responder's URL, asked about each login certificate instead of"
                  + " the responder it names (the CA certificates' status is then not asked)"),
          ParamSpec.free(
              "ocsp-responder",
              "",
              "PEM file of the -p ocsp responder's certificate when it is neither the CA nor a delegate of it"));
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      String url = params.get("ocsp");
      boolean ocsp = params.get("revocation").equals(CertificateLogin.Revocation.OCSP.flag);
      if (!url.isBlank() && !ocsp)
        problems.add("-p ocsp=" + url + ": only with -p revocation=ocsp");
      if (!url.isBlank()) {
        try {
          URI uri = URI.create(url);
          if (uri.getHost() == null || !"http".equalsIgnoreCase(uri.getScheme()))
            problems.add("-p ocsp=" + url + ": give the responder's http:// URL");
        } catch (IllegalArgumentException e) {
          problems.add("-p ocsp=" + url + ": not a URL (" + e.getMessage() + ")");
        }
      }
      String responder = params.get("ocsp-responder");
      if (!responder.isBlank()) {
        if (url.isBlank())
          problems.add("-p ocsp-responder=" + responder + ": only with -p ocsp=URL");
        try {
          PemKeys.certificate(Files.readAllBytes(Path.of(responder)));
        } catch (IOException e) {
          problems.add(
              "-p ocsp-responder="
                  + responder
                  + ": cannot be read ("
                  + e.getMessage()
                  + "); give a PEM file");
        } catch (IllegalArgumentException e) {
          problems.add("-p ocsp-responder=" + responder + ": " + e.getMessage());
        }
      }
      return problems;
    }

    @Override
    public List<String> notes(Params params) {
      return params.get("ocsp").isBlank()
          ? List.of()
          : List.of(
              "OCSP asked of -p ocsp for the login certificates only: the CA certificates' revocation was not checked");
    }

    @Override
    public List<String> services(Params params) {
      String url = params.get("ocsp");
      return url.isBlank() ? List.of() : List.of("-p ocsp " + url);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      String url = params.get("ocsp");
      if (!url.isBlank()) {
        String responder = params.get("ocsp-responder");
        X509Certificate certificate =
            responder.isBlank()
                ? null
                : PemKeys.certificate(Files.readAllBytes(Path.of(responder)));
        return new AuthWorkload(
            Signers.of(context, params),
            CertificateLogin.withOcspResponder(
                context.pki().get(),
                new CertificateLogin.OutsideResponder(URI.create(url), certificate)));
      }
      return new AuthWorkload(
          Signers.of(context, params),
          CertificateLogin.of(
              context.pki().get(), CertificateLogin.Revocation.parse(params.get("revocation"))));
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
  void login(byte[] nonce, byte[] response, String algorithm, List<X509Certificate> chain)
      throws Exception {
    server.login(nonce, response, algorithm, chain);
  }
}
