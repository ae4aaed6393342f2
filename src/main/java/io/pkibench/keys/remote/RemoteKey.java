package io.pkibench.keys.remote;

import java.math.BigInteger;
import java.security.PrivateKey;
import java.security.interfaces.ECKey;
import java.security.interfaces.RSAKey;
import java.security.spec.ECParameterSpec;
import java.util.function.Supplier;

/**
 * A handle on a private key a key server holds: its alias and the route to the cluster that reaches
 * it, never the key itself. It tells its size and curve (from the certificate) so TLS and CMS code
 * that looks at a key's size works unchanged; {@link #getEncoded()} is null, as for a key on a
 * token.
 */
public sealed interface RemoteKey extends PrivateKey
    permits RemoteKey.Rsa, RemoteKey.Ec, RemoteKey.Ed, RemoteKey.MlDsa {
  String alias();

  /**
   * The cluster this call goes out on: the source's own, or the calling worker's when each worker
   * has a client identity of its own.
   */
  Supplier<Cluster> route();

  default Cluster cluster() {
    return route().get();
  }

  @Override
  default String getFormat() {
    return null;
  }

  @Override
  default byte[] getEncoded() {
    return null;
  }

  record Rsa(String alias, BigInteger getModulus, Supplier<Cluster> route)
      implements RemoteKey, RSAKey {
    @Override
    public String getAlgorithm() {
      return "RSA";
    }

    @Override
    public String toString() {
      return "remote RSA-" + getModulus.bitLength() + " key " + alias;
    }
  }

  record Ec(String alias, ECParameterSpec getParams, Supplier<Cluster> route)
      implements RemoteKey, ECKey {
    @Override
    public String getAlgorithm() {
      return "EC";
    }

    @Override
    public String toString() {
      return "remote EC key " + alias;
    }
  }

  record Ed(String alias, Supplier<Cluster> route) implements RemoteKey {
    @Override
    public String getAlgorithm() {
      return "Ed25519";
    }

    @Override
    public String toString() {
      return "remote Ed25519 key " + alias;
    }
  }

  /** An ML-DSA key; {@code parameterSet} as the certificate names it ({@code ML-DSA-65}). */
  record MlDsa(String alias, String parameterSet, Supplier<Cluster> route) implements RemoteKey {
    @Override
    public String getAlgorithm() {
      return "ML-DSA";
    }

    @Override
    public String toString() {
      return "remote " + parameterSet + " key " + alias;
    }
  }
}
