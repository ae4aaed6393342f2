package io.pkibench.workload.tls;

import io.pkibench.formats.tls.TlsClient;
import io.pkibench.keys.PemPairs;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.WorkerIdentities;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The TLS client each worker uses. Without {@code -p identities} every worker shares the one client
 * of {@code -p client} (or {@code -p client-cert}); with {@code -p identities=per-worker} each
 * worker presents a certificate of its own, issued by the test PKI beside {@code -p client}'s (see
 * {@link WorkerIdentities}); with {@code -p identities=DIR}, worker i presents the i-th PEM pair of
 * the user's directory (NAME.crt or NAME.pem with NAME.key, in name order). A gateway that grants
 * or limits per client then sees as many clients as workers.
 */
public final class WorkerClients {
  public static final String IDENTITIES = "identities";
  public static final String PER_WORKER = "per-worker";

  /**
   * Worker {@code worker}'s identity (0-based); throws naming the flag when there is none for it.
   */
  public interface Identities {
    SigningKey forWorker(int worker) throws Exception;
  }

  private final TlsClient shared;
  private final Identities identities;

  private WorkerClients(TlsClient shared, Identities identities) {
    this.shared = shared;
    this.identities = identities;
  }

  /** Every problem of {@code -p identities} found before a run, each naming the flag. */
  static List<String> problems(Params p) {
    String value = p.get(IDENTITIES);
    if (value.isEmpty()) return List.of();
    List<String> problems = new ArrayList<>();
    if (!p.get(ClientTlsParams.CLIENT_CERT).isEmpty()) {
      problems.add(
          "-p identities and -p client-cert: the workers' identities replace the one client certificate; give one of them");
    }
    if (value.equals(PER_WORKER)) {
      if (p.get(ClientTlsParams.CLIENT).isEmpty()) {
        problems.add(
            "-p identities=per-worker needs -p client=NAME: the test-PKI identity (e.g. tls-client) whose issuer and key type the workers' certificates take");
      }
    } else if (!Files.isDirectory(Path.of(value))) {
      problems.add(
          "-p identities="
              + value
              + ": no such directory; give per-worker (the test PKI issues one per worker) or a directory of PEM pairs"
              + " (NAME.crt or NAME.pem with NAME.key)");
    }
    return problems;
  }

  /** {@code -p identities} as every client workload that presents a certificate lists it. */
  public static ParamSpec spec() {
    return ParamSpec.free(
        IDENTITIES,
        "",
        "one client identity per worker; per-worker: the test PKI issues each worker a certificate"
            + " beside -p client's; DIR: a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key), one per worker in name order");
  }

  /**
   * With {@code -p identities=DIR}, a refusal when {@code workers} (the plan's largest level,
   * {@code level}) are more than its pairs: said before the run rather than when the level starts
   * and its worker past the count finds none.
   */
  public static List<String> workerProblems(Params p, int workers, String level) {
    String value = p.get(IDENTITIES);
    if (value.isEmpty() || value.equals(PER_WORKER) || !Files.isDirectory(Path.of(value)))
      return List.of();
    int pairs;
    try {
      pairs = PemPairs.keyFiles(Path.of(value)).size();
    } catch (IOException e) {
      return List.of("-p identities=" + value + ": cannot list it (" + e.getMessage() + ")");
    }
    if (workers <= pairs) return List.of();
    return List.of(
        "-p identities="
            + value
            + " holds "
            + pairs
            + " identit"
            + (pairs == 1 ? "y" : "ies")
            + " (PEM pairs), and "
            + level
            + " needs "
            + workers
            + ", one per worker: add "
            + (workers - pairs)
            + " pair"
            + (workers - pairs == 1 ? "" : "s")
            + " to "
            + value
            + " or lower "
            + level.replaceFirst(" .*", ""));
  }

  /**
   * The clients of {@code p}: {@code shared} for every worker, or one identity each when {@code -p
   * identities} is given.
   */
  static WorkerClients of(WorkloadContext context, Params p, TlsClient shared) throws IOException {
    return new WorkerClients(shared, identities(context, p, p.get(ClientTlsParams.CLIENT)));
  }

  /**
   * The workers' identities {@code -p identities} asks for, or null when it is not given: with
   * per-worker, each issued by the test PKI beside {@code template} (an end-entity alias:
   * tls-client for a TLS client, a signer for a certificate login); with DIR, the directory's i-th
   * pair for worker i.
   */
  public static Identities identities(WorkloadContext context, Params p, String template)
      throws IOException {
    String value = p.get(IDENTITIES);
    if (value.isEmpty()) return null;
    if (value.equals(PER_WORKER)) {
      WorkerIdentities issued =
          new WorkerIdentities(context.pki().get(), template, context.clock());
      return worker -> {
        WorkerIdentities.Issued i = issued.forWorker(worker);
        return new SigningKey(
            template + "-worker-" + worker,
            i.key(),
            i.chain(),
            ProviderChoice.JDK.providerFor(
                "Signature",
                i.key().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA"));
      };
    }
    List<SigningKey> pairs = directory(Path.of(value));
    return worker -> {
      if (worker >= pairs.size()) {
        throw new IllegalArgumentException(
            "-p identities="
                + value
                + " holds "
                + pairs.size()
                + " identit"
                + (pairs.size() == 1 ? "y" : "ies")
                + " (PEM pairs); this run has more workers than that (worker "
                + (worker + 1)
                + "): add pairs to "
                + value
                + " or lower --concurrency");
      }
      return pairs.get(worker);
    };
  }

  /**
   * Every PEM pair of {@code dir} in name order, each key checked to belong to its certificate;
   * refused naming the pair.
   */
  static List<SigningKey> directory(Path dir) throws IOException {
    return PemPairs.read(dir, "-p " + IDENTITIES + "=" + dir);
  }

  /**
   * Worker {@code worker}'s client: the shared one, or the shared settings with the worker's own
   * identity.
   */
  TlsClient forWorker(int worker) throws Exception {
    if (identities == null) return shared;
    SigningKey identity = identities.forWorker(worker);
    return new TlsClient(
        shared.engine(),
        shared.trusted(),
        identity,
        shared.protocols(),
        shared.suites(),
        shared.groups());
  }

  /** Whether each worker has a context of its own (else the shared one is made once). */
  boolean perWorker() {
    return identities != null;
  }
}
