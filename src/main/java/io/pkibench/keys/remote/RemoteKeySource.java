package io.pkibench.keys.remote;

import io.pkibench.keyserver.protocol.KeyServerGrpc;
import io.pkibench.keyserver.protocol.RsfnPackRequest;
import io.pkibench.keyserver.protocol.RsfnPackResponse;
import io.pkibench.keyserver.protocol.RsfnUnpackRequest;
import io.pkibench.keyserver.protocol.RsfnUnpackResponse;
import io.pkibench.keys.KeyNodeTally;
import io.pkibench.keys.RsfnEnvelopeService;
import io.grpc.TlsChannelCredentials;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.TlsContexts;
import io.pkibench.keyserver.protocol.GetChainRequest;
import io.pkibench.keyserver.protocol.KeyEntry;
import io.pkibench.keyserver.protocol.ListKeysRequest;
import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code --keys remote:HOST:PORT[=WEIGHT],…}: private keys held by key-server nodes, used through the
 * {@link RemoteProvider} so that workloads, CMS and XMLDSig libraries and JSSE's key managers sign and
 * decrypt with them unchanged. The client authenticates with {@code clientIdentity} (the test PKI's
 * {@code tls-client} by default) and trusts only {@code root}. Keyless services (digests, AES) run
 * locally, through the best local provider.
 */
public final class RemoteKeySource implements KeySource, RsfnEnvelopeService {
  private final List<NodeAddress> addresses;
  private final Cluster cluster;
  private final RemoteProvider provider = new RemoteProvider();

  public RemoteKeySource(List<NodeAddress> addresses, SigningKey clientIdentity, X509Certificate root, InstantSource clock, Consumer<String> log)
      throws GeneralSecurityException {
    this.addresses = List.copyOf(addresses);
    // JSSE signs its handshake through whichever installed provider takes the key, never one it is
    // given: install ours last, where it only ever takes remote keys (its services declare the class).
    synchronized (RemoteKeySource.class) {
      if (java.security.Security.getProvider(RemoteProvider.NAME) == null) java.security.Security.addProvider(new RemoteProvider());
    }
    var credentials = TlsChannelCredentials.newBuilder()
        .keyManager(TlsContexts.keyManagers(clientIdentity))
        .trustManager(TlsContexts.trustManagers(root))
        .build();
    try {
      this.cluster = new Cluster(addresses, credentials, clock, log);
    } catch (IllegalStateException e) {
      throw new GeneralSecurityException("--keys " + describe() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public SigningKey key(String alias) throws GeneralSecurityException {
    List<X509Certificate> chain = new ArrayList<>();
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    for (var der : cluster.call(stub -> stub.getChain(GetChainRequest.newBuilder().setAlias(alias).build())).getCertificatesList()) {
      chain.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der.toByteArray())));
    }
    if (chain.isEmpty()) throw new GeneralSecurityException("key server sent no certificate for " + alias);
    var publicKey = chain.get(0).getPublicKey();
    RemoteKey handle = switch (publicKey) {
      case RSAPublicKey rsa -> new RemoteKey.Rsa(alias, rsa.getModulus(), cluster);
      case ECPublicKey ec -> new RemoteKey.Ec(alias, ec.getParams(), cluster);
      default -> {
        if (publicKey.getAlgorithm().equals("Ed25519") || publicKey.getAlgorithm().equals("EdDSA")) yield new RemoteKey.Ed(alias, cluster);
        if (publicKey.getAlgorithm().startsWith("ML-DSA")) yield new RemoteKey.MlDsa(alias, chain.get(0).getSigAlgName().startsWith("ML-DSA")
            ? chain.get(0).getSigAlgName() : "ML-DSA", cluster);
        throw new GeneralSecurityException("key " + alias + " is " + publicKey.getAlgorithm() + "; the remote source uses RSA, EC, Ed25519 and ML-DSA keys");
      }
    };
    return new SigningKey(alias, handle, chain, provider);
  }

  /**
   * Runs {@code call} on a node the cluster picks (weighted least-pending), with its deadline and
   * failover: for the contract's operations beyond the JCA ones (RSFN packing on the node).
   */
  public <T> T call(java.util.function.Function<KeyServerGrpc.KeyServerBlockingStub, T> call) throws KeyServerException {
    return cluster.call(call);
  }

  @Override
  public RsfnPackResponse pack(RsfnPackRequest request) throws KeyServerException {
    return cluster.call(stub -> stub.rsfnPack(request));
  }

  @Override
  public RsfnUnpackResponse unpack(RsfnUnpackRequest request) throws KeyServerException {
    return cluster.call(stub -> stub.rsfnUnpack(request));
  }

  @Override
  public List<String> aliases() throws GeneralSecurityException {
    return cluster.call(stub -> stub.listKeys(ListKeysRequest.getDefaultInstance())).getKeysList().stream().map(KeyEntry::getAlias).toList();
  }

  @Override
  public Provider provider(String type, String algorithm) throws GeneralSecurityException {
    if (provider.getService(type, algorithm) != null) return provider;
    return ProviderChoice.best().providerFor(type, algorithm);
  }

  /** The nodes, each one's calls and failures so far, whether it is up, and when it went out and came back. */
  @Override
  public List<KeyNodeTally> nodes() {
    return cluster.nodes();
  }

  @Override
  public List<String> awaitNodesUp(java.time.Duration within) throws InterruptedException {
    return cluster.awaitUp(within);
  }

  @Override
  public String describe() {
    return "remote:" + String.join(",", addresses.stream().map(a -> a + "=" + a.weight()).toList());
  }

  @Override
  public void close() {
    cluster.close();
  }
}
