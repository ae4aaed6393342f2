package io.pkibench.workload.ades;

import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.HttpTimeStampResponder;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.formats.ades.TimeStampResponder;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys the AdES workloads share: {@code certs} signers of {@code alg} from the key source, and
 * the TSA.
 */
public final class Signers {
  /** {@code -p alg=}: the signer key type the AdES workloads and their HTTP clients use. */
  public static final ParamSpec ALG =
      ParamSpec.choice("alg", "rsa2048", "signer key type", "rsa2048", "ecdsa-p256");

  /**
   * {@code -p certs=}: how many signer certificates are used in turn (from both intermediates:
   * different CRLs).
   */
  public static final ParamSpec CERTS =
      ParamSpec.choice(
          "certs",
          "1",
          "signer certificates used in turn (from both intermediates: different CRLs)",
          "1",
          "2",
          "3",
          "4");

  /**
   * {@code -p tsa=}: the B-T levels' TSA; empty for the one in this process (the test PKI's {@code
   * tsa} key).
   */
  public static final ParamSpec TSA =
      ParamSpec.free(
          "tsa",
          "",
          "an outside RFC 3161 TSA's URL for the signature time-stamps, e.g. http://tsa.example:318/ (default: the TSA in this process)");

  /** {@code -p tsa-trust=}: what an outside TSA's tokens are verified against. */
  public static final ParamSpec TSA_TRUST =
      ParamSpec.free(
          "tsa-trust",
          "",
          "PEM file with the outside TSA's chain: each token is verified against it (and --verify checks the B-T signature with it)");

  private Signers() {}

  public static List<SigningKey> of(WorkloadContext context, Params params)
      throws GeneralSecurityException {
    KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
    List<SigningKey> signers = new ArrayList<>();
    for (int i = 1; i <= Integer.parseInt(params.get("certs")); i++)
      signers.add(context.keys().key(Entity.signerAlias(alg, i)));
    return signers;
  }

  /**
   * The root the in-process TSA's certificate must chain to for a B-T check to pass: the test
   * PKI's, taken from the PKI rather than from the token, which would vouch for itself.
   */
  public static X509Certificate tsaTrustAnchor(WorkloadContext context) {
    return context.pki().get().certificate("root-ca");
  }

  static TimeStampAuthority tsa(WorkloadContext context) throws GeneralSecurityException {
    return new TimeStampAuthority(context.keys().key("tsa"), context.clock());
  }

  /** The TSA {@code -p tsa} names, or the one in this process. */
  static TimeStampResponder tsa(WorkloadContext context, Params params)
      throws GeneralSecurityException {
    return params.get(TSA.name()).isBlank()
        ? tsa(context)
        : new HttpTimeStampResponder(URI.create(params.get(TSA.name())));
  }

  /**
   * What each token is checked with: the outside TSA's {@code -p tsa-trust} when given; else
   * status, nonce and imprint only.
   */
  static TimeStampCheck tsaCheck(Params params) throws IOException {
    return new TimeStampCheck(tsaTrust(params));
  }

  private static CertificateTrust tsaTrust(Params params) throws IOException {
    String file = params.get(TSA_TRUST.name());
    return file.isBlank()
        ? null
        : CertificateTrust.of(PemKeys.certificates(Files.readAllBytes(Path.of(file))));
  }

  /**
   * The root a B-T signature's time-stamp must chain to under {@code --verify}: the outside TSA's
   * trust, or the test PKI's root for ours. An outside TSA without trust cannot be checked, which
   * is said rather than skipped.
   */
  static X509Certificate tsaTrustAnchor(WorkloadContext context, Params params) throws IOException {
    if (params.get(TSA.name()).isBlank()) return tsaTrustAnchor(context);
    CertificateTrust trust = tsaTrust(params);
    if (trust == null) {
      throw new IllegalArgumentException(
          "--verify with -p tsa="
              + params.get(TSA.name())
              + ": give -p tsa-trust=PEM (the TSA's chain) so its time-stamps can be checked");
    }
    return trust.anchor();
  }

  /**
   * The B-T levels' parameter problems: a URL that is one, a trust file that holds certificates,
   * trust only with an outside TSA.
   */
  static List<String> tsaProblems(Params params) {
    List<String> problems = new ArrayList<>();
    String url = params.get(TSA.name());
    String trust = params.get(TSA_TRUST.name());
    if (!url.isBlank()) {
      try {
        URI uri = URI.create(url);
        if (uri.getHost() == null
            || !(uri.getScheme().equalsIgnoreCase("http")
                || uri.getScheme().equalsIgnoreCase("https"))) {
          problems.add(
              "-p tsa="
                  + url
                  + ": give the TSA's http:// or https:// URL, e.g. http://127.0.0.1:18318/tsa");
        }
      } catch (IllegalArgumentException e) {
        problems.add("-p tsa=" + url + ": not a URL (" + e.getMessage() + ")");
      }
    }
    if (!trust.isBlank()) {
      if (url.isBlank())
        problems.add(
            "-p tsa-trust="
                + trust
                + ": only with -p tsa=URL (the TSA in this process is the test PKI's)");
      try {
        PemKeys.certificates(Files.readAllBytes(Path.of(trust)));
      } catch (IOException e) {
        problems.add(
            "-p tsa-trust=" + trust + ": cannot be read (" + e.getMessage() + "); give a PEM file");
      } catch (IllegalArgumentException e) {
        problems.add(
            "-p tsa-trust=" + trust + ": " + e.getMessage() + "; give the TSA's chain as PEM");
      }
    }
    return problems;
  }

  static List<String> tsaNotes(Params params) {
    return !params.get(TSA.name()).isBlank() && params.get(TSA_TRUST.name()).isBlank()
        ? List.of(
            "time-stamp tokens from -p tsa not verified: no -p tsa-trust given (a PEM file with the TSA's chain); status, nonce and imprint were checked")
        : List.of();
  }

  static List<String> tsaServices(Params params) {
    String url = params.get(TSA.name());
    return url.isBlank() ? List.of() : List.of("-p tsa " + url);
  }
}
