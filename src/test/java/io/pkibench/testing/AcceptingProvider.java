package io.pkibench.testing;

import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.InvalidParameterException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyPairGeneratorSpi;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;
import java.security.spec.AlgorithmParameterSpec;
import java.util.List;

/**
 * A planted fault a provider's check of itself cannot see: it signs as the JDK does with one bit
 * flipped, and its verify accepts every signature, its own broken ones included. Key pairs it
 * generates as the JDK does, so that {@code keygen} measures it.
 */
public final class AcceptingProvider extends Provider {
  public static final String NAME = "Accepting";
  private static final List<String> SIGNATURES =
      List.of("SHA256withRSA", "SHA256withECDSA", "SHA384withECDSA");

  public AcceptingProvider() {
    super(NAME, "1.0", "signatures with a bit flipped, and a verify that accepts any (a fault)");
    for (String a : SIGNATURES) putService(new Planted(this, "Signature", a));
    for (String a : List.of("RSA", "EC")) putService(new Planted(this, "KeyPairGenerator", a));
  }

  private static final class Planted extends Service {
    Planted(Provider provider, String type, String algorithm) {
      super(provider, type, algorithm, Planted.class.getName(), null, null);
    }

    @Override
    public Object newInstance(Object parameter) throws NoSuchAlgorithmException {
      return getType().equals("Signature")
          ? new AcceptingSignature(Signature.getInstance(getAlgorithm()))
          : new JdkKeyPairs(KeyPairGenerator.getInstance(getAlgorithm()));
    }

    @Override
    public boolean supportsParameter(Object parameter) {
      return true;
    }
  }

  private static final class JdkKeyPairs extends KeyPairGeneratorSpi {
    private final KeyPairGenerator real;

    JdkKeyPairs(KeyPairGenerator real) {
      this.real = real;
    }

    @Override
    public void initialize(int keySize, SecureRandom random) {
      real.initialize(keySize, random);
    }

    @Override
    public void initialize(AlgorithmParameterSpec params, SecureRandom random)
        throws InvalidAlgorithmParameterException {
      real.initialize(params, random);
    }

    @Override
    public KeyPair generateKeyPair() {
      return real.generateKeyPair();
    }
  }

  private static final class AcceptingSignature extends SignatureSpi {
    private final Signature real;
    private boolean verifying;

    AcceptingSignature(Signature real) {
      this.real = real;
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
      verifying = true;
    }

    @Override
    protected void engineInitSign(PrivateKey key) throws InvalidKeyException {
      verifying = false;
      real.initSign(key);
    }

    @Override
    protected void engineUpdate(byte b) throws SignatureException {
      if (!verifying) real.update(b);
    }

    @Override
    protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
      if (!verifying) real.update(b, off, len);
    }

    @Override
    protected byte[] engineSign() throws SignatureException {
      return BitFlipProvider.flipped(real.sign());
    }

    @Override
    protected boolean engineVerify(byte[] sigBytes) {
      return true;
    }

    @Override
    @Deprecated
    protected void engineSetParameter(String param, Object value) {
      throw new InvalidParameterException("not supported");
    }

    @Override
    @Deprecated
    protected Object engineGetParameter(String param) {
      throw new InvalidParameterException("not supported");
    }
  }
}
