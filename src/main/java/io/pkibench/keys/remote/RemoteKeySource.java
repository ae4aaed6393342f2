package io.pkibench.keys.remote;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import io.pkibench.keys.CallingWorker;
import io.pkibench.keys.KeyNodeTally;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.RsfnEnvelopeService;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.TlsContexts;
import io.pkibench.keyserver.protocol.GetChainRequest;
import io.pkibench.keyserver.protocol.KeyEntry;
import io.pkibench.keyserver.protocol.KeyServerGrpc;
import io.pkibench.keyserver.protocol.ListKeysRequest;
import io.pkibench.keyserver.protocol.RsfnPackRequest;
import io.pkibench.keyserver.protocol.RsfnPackResponse;
import io.pkibench.keyserver.protocol.RsfnUnpackRequest;
import io.pkibench.keyserver.protocol.RsfnUnpackResponse;
import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.Security;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * {@code --keys remote:HOST:PORT[=WEIGHT],…}: private keys held by key-server nodes, used through
 * the {@link RemoteProvider} so that workloads, CMS and XMLDSig libraries and JSSE's key managers
 * sign and decrypt with them unchanged. The client authenticates with {@code clientIdentity} (the
 * test PKI's {@code tls-client} by default) and trusts only {@code root}. Keyless services
 * (digests, AES) run locally, through the best local provider.
 */
public final class RemoteKeySource implements KeySource, RsfnEnvelopeService {
  private final List<NodeAddress> addresses;
  private final Cluster cluster;
  private final RemoteProvider provider = new RemoteProvider();

  /**
   * Worker {@code worker}'s own client identity (0-based), presented to the nodes on connections of
   * its own.
   */
  public interface PerWorker {
    SigningKey forWorker(int worker) throws Exception;
  }

  /**
   * Each worker's identity (null: every call presents the source's one), how the flag named it, and
   * each worker's cluster once it called.
   */
  private final PerWorker perWorker;

  private final String perWorkerFlag;
  private final Map<Integer, Cluster> workerClusters = new ConcurrentHashMap<>();
  private final X509Certificate root;
  private final InstantSource clock;
  private final Consumer<String> log;

  public RemoteKeySource(
      List<NodeAddress> addresses,
      SigningKey clientIdentity,
      X509Certificate root,
      InstantSource clock,
      Consumer<String> log)
      throws GeneralSecurityException {
    this(addresses, clientIdentity, root, clock, log, null, null);
  }

  /**
   * With {@code perWorker}, a call made on a worker's thread ({@link CallingWorker}) goes out on
   * that worker's own connections, which present its own certificate, so the nodes (and their
   * grants) see as many clients as workers; {@code flag} is how {@code --keys} named them
   * (identities=per-worker or identities=DIR). Other calls (the chains) present {@code
   * clientIdentity}.
   */
  public RemoteKeySource(
      List<NodeAddress> addresses,
      SigningKey clientIdentity,
      X509Certificate root,
      InstantSource clock,
      Consumer<String> log,
      PerWorker perWorker,
      String flag)
      throws GeneralSecurityException {
    this.addresses = List.copyOf(addresses);
    this.perWorker = perWorker;
    this.perWorkerFlag = flag;
    this.root = root;
    this.clock = clock;
    this.log = log;
    // JSSE signs its handshake through whichever installed provider takes the key, never one it is
    // given: install ours last, where it only ever takes remote keys (its services declare the
    // class).
    synchronized (RemoteKeySource.class) {
      if (Security.getProvider(RemoteProvider.NAME) == null)
        Security.addProvider(new RemoteProvider());
    }
    try {
      this.cluster = new Cluster(addresses, credentials(clientIdentity, root), clock, log);
    } catch (IllegalStateException e) {
      throw new GeneralSecurityException("--keys " + describe() + ": " + e.getMessage(), e);
    }
  }

  private static ChannelCredentials credentials(SigningKey identity, X509Certificate root)
      throws GeneralSecurityException {
    return TlsChannelCredentials.newBuilder()
        .keyManager(TlsContexts.keyManagers(identity))
        .trustManager(TlsContexts.trustManagers(root))
        .build();
  }

  /**
   * The cluster a key call goes out on: the calling worker's own (made on its first call,
   * connecting with its identity) when each worker has one, else this source's.
   */
  private Cluster route() {
    if (perWorker == null)
      return cluster; // one identity for every worker: no thread-local read per call
    int worker = CallingWorker.current();
    if (worker < 0) return cluster;
    Cluster own = workerClusters.get(worker);
    if (own != null) return own;
    return workerClusters.computeIfAbsent(
        worker,
        w -> {
          try {
            return new Cluster(addresses, credentials(perWorker.forWorker(w), root), clock, log);
          } catch (Exception e) {
            throw new IllegalStateException(
                "--keys "
                    + describe()
                    + ": worker "
                    + (w + 1)
                    + "'s client identity: "
                    + e.getMessage(),
                e);
          }
        });
  }

  @Override
  public SigningKey key(String alias) throws GeneralSecurityException {
    List<X509Certificate> chain = new ArrayList<>();
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    for (var der :
        cluster
            .call(stub -> stub.getChain(GetChainRequest.newBuilder().setAlias(alias).build()))
            .getCertificatesList()) {
      chain.add(
          (X509Certificate)
              factory.generateCertificate(new ByteArrayInputStream(der.toByteArray())));
    }
    if (chain.isEmpty())
      throw new GeneralSecurityException("key server sent no certificate for " + alias);
    var publicKey = chain.get(0).getPublicKey();
    RemoteKey handle =
        switch (publicKey) {
          case RSAPublicKey rsa -> new RemoteKey.Rsa(alias, rsa.getModulus(), this::route);
          case ECPublicKey ec -> new RemoteKey.Ec(alias, ec.getParams(), this::route);
          default -> {
            if (publicKey.getAlgorithm().equals("Ed25519")
                || publicKey.getAlgorithm().equals("EdDSA"))
              yield new RemoteKey.Ed(alias, this::route);
            if (publicKey.getAlgorithm().startsWith("ML-DSA"))
              yield new RemoteKey.MlDsa(
                  alias,
                  chain.get(0).getSigAlgName().startsWith("ML-DSA")
                      ? chain.get(0).getSigAlgName()
                      : "ML-DSA",
                  this::route);
            throw new GeneralSecurityException(
                "key "
                    + alias
                    + " is "
                    + publicKey.getAlgorithm()
                    + "; the remote source uses RSA, EC, Ed25519 and ML-DSA keys");
          }
        };
    return new SigningKey(alias, handle, chain, provider);
  }

  /**
   * Runs {@code call} on a node the cluster picks (weighted least-pending), with its deadline and
   * failover: for the contract's operations beyond the JCA ones (RSFN packing on the node).
   */
  public <T> T call(Function<KeyServerGrpc.KeyServerBlockingStub, T> call)
      throws KeyServerException {
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
    return cluster
        .call(stub -> stub.listKeys(ListKeysRequest.getDefaultInstance()))
        .getKeysList()
        .stream()
        .map(KeyEntry::getAlias)
        .toList();
  }

  @Override
  public Provider provider(String type, String algorithm) throws GeneralSecurityException {
    if (provider.getService(type, algorithm) != null) return provider;
    return ProviderChoice.best().providerFor(type, algorithm);
  }

  /**
   * The nodes, each one's calls and failures so far, whether it is up, and when it went out and
   * came back.
   */
  @Override
  public List<KeyNodeTally> nodes() {
    if (workerClusters.isEmpty()) return cluster.nodes();
    // each worker's calls went out on its own connections: the nodes' tallies are the sum over the
    // source's and the workers'
    List<List<KeyNodeTally>> all = new ArrayList<>(List.of(cluster.nodes()));
    for (Cluster c : workerClusters.values()) all.add(c.nodes());
    return KeyNodeTally.sum(all);
  }

  @Override
  public List<String> awaitNodesUp(Duration within) throws InterruptedException {
    return cluster.awaitUp(within);
  }

  @Override
  public String describe() {
    return "remote:"
        + String.join(",", addresses.stream().map(a -> a + "=" + a.weight()).toList())
        + (perWorkerFlag == null ? "" : "," + perWorkerFlag);
  }

  @Override
  public void close() {
    workerClusters.values().forEach(Cluster::close);
    workerClusters.clear();
    cluster.close();
  }
}
