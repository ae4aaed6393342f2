package io.pkibench.keys.remote.openbao;

import java.math.BigInteger;
import java.security.PrivateKey;
import java.security.interfaces.ECKey;
import java.security.interfaces.RSAKey;
import java.security.spec.ECParameterSpec;

/**
 * A handle on a private key OpenBao's transit engine holds: its name and the source that reaches
 * it, never the key. It tells its size and curve, so TLS and CMS code that looks at a key's size
 * works unchanged; {@link #getEncoded()} is null, as for a key on a token.
 */
public sealed interface TransitKey extends PrivateKey
    permits TransitKey.Rsa, TransitKey.Ec, TransitKey.Ed {
  String name();

  TransitKeySource source();

  @Override
  default String getFormat() {
    return null;
  }

  @Override
  default byte[] getEncoded() {
    return null;
  }

  record Rsa(String name, BigInteger getModulus, TransitKeySource source)
      implements TransitKey, RSAKey {
    @Override
    public String getAlgorithm() {
      return "RSA";
    }

    @Override
    public String toString() {
      return "OpenBao transit RSA-" + getModulus.bitLength() + " key " + name;
    }
  }

  record Ec(String name, ECParameterSpec getParams, TransitKeySource source)
      implements TransitKey, ECKey {
    @Override
    public String getAlgorithm() {
      return "EC";
    }

    @Override
    public String toString() {
      return "OpenBao transit EC key " + name;
    }
  }

  record Ed(String name, TransitKeySource source) implements TransitKey {
    @Override
    public String getAlgorithm() {
      return "Ed25519";
    }

    @Override
    public String toString() {
      return "OpenBao transit Ed25519 key " + name;
    }
  }
}
