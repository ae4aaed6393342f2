package io.pkibench.workload.ades;

import io.pkibench.workload.api.ParamSpec;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;

/** The keys the AdES workloads share: {@code certs} signers of {@code alg} from the key source, and the TSA. */
public final class Signers {
  /** {@code -p alg=}: the signer key type the AdES workloads and their HTTP clients use. */
  public static final ParamSpec ALG =
      ParamSpec.choice("alg", "rsa2048", "signer key type", "rsa2048", "ecdsa-p256");
  /** {@code -p certs=}: how many signer certificates are used in turn (from both intermediates: different CRLs). */
  public static final ParamSpec CERTS = ParamSpec.choice("certs", "1",
      "signer certificates used in turn (from both intermediates: different CRLs)", "1", "2", "3", "4");

  private Signers() {}

  public static List<SigningKey> of(WorkloadContext context, Params params) throws GeneralSecurityException {
    KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
    List<SigningKey> signers = new ArrayList<>();
    for (int i = 1; i <= Integer.parseInt(params.get("certs")); i++) signers.add(context.keys().key(Entity.signerAlias(alg, i)));
    return signers;
  }

  /**
   * The root the in-process TSA's certificate must chain to for a B-T check to pass: the test PKI's,
   * taken from the PKI rather than from the token, which would vouch for itself.
   */
  public static java.security.cert.X509Certificate tsaTrustAnchor(WorkloadContext context) {
    return context.pki().get().certificate("root-ca");
  }

  static TimeStampAuthority tsa(WorkloadContext context) throws GeneralSecurityException {
    return new TimeStampAuthority(context.keys().key("tsa"), context.clock());
  }
}
