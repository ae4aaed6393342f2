package io.pkibench.pki;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.ArrayList;
import java.util.List;

/**
 * One certificate holder of the test PKI as listed in its manifest; {@code issuer} is an alias
 * (itself for the root).
 */
public record Entity(
    String alias, Role role, KeyAlgorithm keyAlgorithm, String issuer, boolean revoked) {

  /**
   * Every entity, issuers before what they issue. Signers alternate between the two intermediates
   * so that they have different CRLs.
   */
  /** The ML-DSA-65 root and intermediate that certify {@code signer-ml-dsa-65-2}. */
  public static final String PQ_ROOT = "root-ca-ml-dsa-65";

  public static final String PQ_INTERMEDIATE = "intermediate-ml-dsa-65";

  public static List<Entity> standardSet() {
    var list = new ArrayList<Entity>();
    list.add(new Entity("root-ca", Role.ROOT_CA, KeyAlgorithm.RSA3072, "root-ca", false));
    list.add(
        new Entity("intermediate-a", Role.INTERMEDIATE_CA, KeyAlgorithm.RSA2048, "root-ca", false));
    list.add(
        new Entity("intermediate-b", Role.INTERMEDIATE_CA, KeyAlgorithm.RSA2048, "root-ca", false));
    for (KeyAlgorithm alg : KeyAlgorithm.signerAlgorithms()) {
      // ML-DSA-65's second signer is the post-quantum chain's leaf, below
      int count = alg == KeyAlgorithm.RSA2048 || alg == KeyAlgorithm.ECDSA_P256 ? 4 : 1;
      for (int i = 1; i <= count; i++) {
        list.add(
            new Entity(
                signerAlias(alg, i),
                Role.SIGNER,
                alg,
                i % 2 == 1 ? "intermediate-a" : "intermediate-b",
                false));
      }
    }
    list.add(
        new Entity(
            "signer-rsa2048-revoked", Role.SIGNER, KeyAlgorithm.RSA2048, "intermediate-a", true));
    list.add(
        new Entity("tls-server", Role.TLS_SERVER, KeyAlgorithm.RSA2048, "intermediate-a", false));
    // The ssl study's other server keys: the original's RSA-1024 handshakes, and an ECDSA server.
    list.add(
        new Entity(
            "tls-server-rsa1024", Role.TLS_SERVER, KeyAlgorithm.RSA1024, "intermediate-a", false));
    list.add(
        new Entity(
            "tls-server-ecdsa-p256",
            Role.TLS_SERVER,
            KeyAlgorithm.ECDSA_P256,
            "intermediate-a",
            false));
    list.add(
        new Entity("tls-client", Role.TLS_CLIENT, KeyAlgorithm.RSA2048, "intermediate-b", false));
    list.add(new Entity("tsa", Role.TSA, KeyAlgorithm.RSA2048, "intermediate-a", false));
    list.add(
        new Entity("keyserver", Role.KEY_SERVER, KeyAlgorithm.RSA2048, "intermediate-b", false));
    // The post-quantum chain: ML-DSA-65 from the root down (the signer-ALG-1 keys above are ML-DSA
    // and
    // SLH-DSA leaves certified by the RSA chain, the migration's first step).
    list.add(new Entity(PQ_ROOT, Role.ROOT_CA, KeyAlgorithm.ML_DSA_65, PQ_ROOT, false));
    list.add(
        new Entity(PQ_INTERMEDIATE, Role.INTERMEDIATE_CA, KeyAlgorithm.ML_DSA_65, PQ_ROOT, false));
    list.add(
        new Entity(
            signerAlias(KeyAlgorithm.ML_DSA_65, 2),
            Role.SIGNER,
            KeyAlgorithm.ML_DSA_65,
            PQ_INTERMEDIATE,
            false));
    return List.copyOf(list);
  }

  public static String signerAlias(KeyAlgorithm alg, int index) {
    return "signer-" + alg.flag + "-" + index;
  }

  @JsonIgnore
  public boolean isCa() {
    return role == Role.ROOT_CA || role == Role.INTERMEDIATE_CA;
  }
}
