package io.pkibench.keys.catalog;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.P11KitAddress;
import io.pkibench.keys.PemPairs;
import io.pkibench.keys.Pkcs11KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.remote.NodeAddress;
import io.pkibench.keys.remote.RemoteKeySource;
import io.pkibench.keys.remote.openbao.OpenBaoKeySpec;
import io.pkibench.keys.remote.openbao.TransitKeySource;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import io.pkibench.pki.WorkerIdentities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Opens the key source a {@code --keys} value names: {@code software[:accp|jdk|bc]}, {@code
 * pkcs11:CONFIG[,remote=unix:path=SOCKET]}, {@code remote:HOST:PORT[=WEIGHT],…} or {@code
 * openbao:URL[,URL…],key=NAME,…}.
 */
public final class KeySources {
  public static final String PIN_ENV = "PKIBENCH_PKCS11_PIN";

  private KeySources() {}

  /**
   * A {@code --keys} list, e.g. {@code
   * software:jdk,software:bc,remote:127.0.0.1:9443=50,127.0.0.1:9444=50}: an item that names no
   * source continues the node list of the {@code remote:} before it.
   */
  public static List<String> split(String keys) {
    List<String> specs = new ArrayList<>();
    for (String item : keys.split(",")) {
      String s = item.strip();
      boolean startsSource =
          s.equals("software")
              || s.startsWith("software:")
              || s.startsWith("pkcs11:")
              || s.startsWith("remote:")
              || s.startsWith(OpenBaoKeySpec.PREFIX);
      String last = specs.isEmpty() ? "" : specs.get(specs.size() - 1);
      if (!startsSource
          && (last.startsWith("remote:")
              || last.startsWith(OpenBaoKeySpec.PREFIX)
              || (last.startsWith("pkcs11:") && s.startsWith(P11KIT_REMOTE)))) {
        specs.set(specs.size() - 1, specs.get(specs.size() - 1) + "," + s);
      } else {
        specs.add(s);
      }
    }
    return specs;
  }

  /**
   * The item of a {@code remote:} list that gives each worker its own client certificate towards
   * the nodes ({@code remote:HOST:PORT,identities=per-worker}), so that their grants see as many
   * clients as workers.
   */
  static final String IDENTITIES = "identities=";

  static final String PER_WORKER = "per-worker";

  /**
   * The item of a {@code pkcs11:} spec naming the p11-kit server its config's p11-kit-client.so
   * reaches ({@code pkcs11:CONFIG,remote=unix:path=SOCKET}).
   */
  static final String P11KIT_REMOTE = "remote=";

  /** The config file of a {@code pkcs11:} spec. */
  private static Path pkcs11Config(String spec) {
    return Path.of(spec.substring("pkcs11:".length()).split(",", 2)[0]);
  }

  /** The {@code remote=} address of a {@code pkcs11:} spec, or null; a bad one throws. */
  private static P11KitAddress pkcs11Remote(String spec) {
    String[] items = spec.substring("pkcs11:".length()).split(",");
    P11KitAddress remote = null;
    for (int i = 1; i < items.length; i++) {
      String item = items[i].strip();
      if (!item.startsWith(P11KIT_REMOTE)) {
        throw new IllegalArgumentException(
            "--keys "
                + spec
                + ": '"
                + item
                + "' is not an item of pkcs11:; give pkcs11:CONFIG or"
                + " pkcs11:CONFIG,remote=unix:path=SOCKET");
      }
      remote = P11KitAddress.parse(item.substring(P11KIT_REMOTE.length()), "--keys " + spec);
    }
    return remote;
  }

  /**
   * The p11-kit server addresses the {@code pkcs11:…,remote=} items of a {@code --keys} value name
   * (empty for any other value, or one that does not parse: the command reports that itself).
   */
  public static List<P11KitAddress> p11KitServers(String keys) {
    List<P11KitAddress> servers = new ArrayList<>();
    for (String spec : split(keys)) {
      if (!spec.startsWith("pkcs11:")) continue;
      try {
        P11KitAddress remote = pkcs11Remote(spec);
        if (remote != null && !servers.contains(remote)) servers.add(remote);
      } catch (IllegalArgumentException e) {
        // reported by the command's own checks, with every other problem
      }
    }
    return servers;
  }

  /** The node list of a {@code remote:} spec, without its {@code identities=} item. */
  private static String nodesOf(String spec) {
    return String.join(
        ",",
        Arrays.stream(spec.substring("remote:".length()).split(","))
            .filter(i -> !i.strip().startsWith(IDENTITIES))
            .toList());
  }

  /** The value of a {@code remote:} spec's {@code identities=} item, or null. */
  private static String identitiesOf(String spec) {
    return Arrays.stream(spec.substring("remote:".length()).split(","))
        .map(String::strip)
        .filter(i -> i.startsWith(IDENTITIES))
        .map(i -> i.substring(IDENTITIES.length()))
        .findFirst()
        .orElse(null);
  }

  /**
   * With {@code identities=DIR}, a refusal when {@code workers} (the plan's largest level, {@code
   * level}) are more than the directory's pairs, said before the run.
   */
  public static List<String> workerProblems(String spec, int workers, String level) {
    if (!spec.startsWith("remote:")) return List.of();
    String identities = identitiesOf(spec);
    if (identities == null
        || identities.equals(PER_WORKER)
        || !Files.isDirectory(Path.of(identities))) return List.of();
    int pairs;
    try {
      pairs = PemPairs.keyFiles(Path.of(identities)).size();
    } catch (IOException e) {
      return List.of(
          "--keys " + spec + ": cannot list " + identities + " (" + e.getMessage() + ")");
    }
    if (workers <= pairs) return List.of();
    return List.of(
        "--keys "
            + spec
            + ": "
            + identities
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
            + identities
            + " or lower "
            + level.replaceFirst(" .*", ""));
  }

  /**
   * Checks the syntax only (no file is opened): null when fine, else the problem naming {@code
   * --keys}.
   */
  public static String problem(String spec) {
    if (spec.equals("software")) return null;
    if (spec.startsWith("software:")) {
      try {
        ProviderChoice.parse(spec.substring("software:".length()));
        return null;
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
    }
    if (spec.startsWith("pkcs11:") && !pkcs11Config(spec).toString().isEmpty()) {
      try {
        pkcs11Remote(spec);
        return null;
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
    }
    if (spec.startsWith(OpenBaoKeySpec.PREFIX)) {
      try {
        OpenBaoKeySpec.parse(spec);
        return null;
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
    }
    if (spec.startsWith("remote:")) {
      try {
        NodeAddress.parseAll(nodesOf(spec));
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
      String identities = identitiesOf(spec);
      if (identities != null
          && !identities.equals(PER_WORKER)
          && !Files.isDirectory(Path.of(identities))) {
        return "--keys "
            + spec
            + ": "
            + IDENTITIES
            + identities
            + ": no such directory; give identities=per-worker (the test PKI issues each worker"
            + " a client certificate beside tls-client, kept in the PKI directory) or a directory of PEM pairs (NAME.crt or NAME.pem with NAME.key)";
      }
      return null;
    }
    return "--keys "
        + spec
        + ": unknown key source; use software, software:accp|jdk|bc, pkcs11:CONFIG[,remote=unix:path=SOCKET], remote:HOST:PORT[=WEIGHT],… or openbao:URL[,URL…][,key=NAME]";
  }

  /**
   * Opens {@code spec}. A {@code remote:} source authenticates to its nodes with the test PKI's
   * {@code tls-client} key and reports nodes going down and back through {@code log}.
   */
  public static KeySource open(
      String spec,
      Supplier<TestPki> pki,
      Path pinFile,
      Map<String, String> env,
      InstantSource clock,
      Consumer<String> log)
      throws GeneralSecurityException, IOException {
    String problem = problem(spec);
    if (problem != null) throw new IllegalArgumentException(problem);
    if (spec.startsWith(OpenBaoKeySpec.PREFIX)) {
      OpenBaoKeySpec parsed = OpenBaoKeySpec.parse(spec);
      return new TransitKeySource(
          parsed, env, parsed.trust() == null ? pki.get().certificate("root-ca") : null);
    }
    if (spec.startsWith("remote:")) {
      TestPki testPki = pki.get();
      SigningKey client =
          new SoftwareKeySource(() -> testPki, ProviderChoice.JDK).key("tls-client");
      if (identitiesOf(spec) == null) {
        return new RemoteKeySource(
            NodeAddress.parseAll(nodesOf(spec)),
            client,
            testPki.certificate("root-ca"),
            clock,
            log);
      }
      String identities = identitiesOf(spec);
      if (!identities.equals(PER_WORKER)) {
        String flag = "--keys " + spec;
        List<SigningKey> pairs = PemPairs.read(Path.of(identities), flag);
        return new RemoteKeySource(
            NodeAddress.parseAll(nodesOf(spec)),
            client,
            testPki.certificate("root-ca"),
            clock,
            log,
            worker -> {
              if (worker >= pairs.size()) {
                throw new IllegalArgumentException(
                    flag
                        + ": "
                        + identities
                        + " holds "
                        + pairs.size()
                        + " PEM pairs; worker "
                        + (worker + 1)
                        + " has none");
              }
              return pairs.get(worker);
            },
            IDENTITIES + identities);
      }
      WorkerIdentities issued = new WorkerIdentities(testPki, "tls-client", clock);
      return new RemoteKeySource(
          NodeAddress.parseAll(nodesOf(spec)),
          client,
          testPki.certificate("root-ca"),
          clock,
          log,
          worker -> {
            WorkerIdentities.Issued i = issued.forWorker(worker);
            return new SigningKey(
                "tls-client-worker-" + worker,
                i.key(),
                i.chain(),
                ProviderChoice.JDK.providerFor(
                    "Signature",
                    i.key().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA"));
          },
          IDENTITIES + PER_WORKER);
    }
    if (spec.equals("software")) return new SoftwareKeySource(pki, ProviderChoice.best(), true);
    if (spec.startsWith("software:")) {
      return new SoftwareKeySource(pki, ProviderChoice.parse(spec.substring("software:".length())));
    }
    P11KitAddress remote = pkcs11Remote(spec);
    String inEnv = env.get(P11KitAddress.ENV);
    if (remote != null && !remote.toString().equals(inEnv)) {
      // The pkibench command starts its JVM again with the address (cli.P11KitLaunch); a JVM
      // started otherwise cannot set its own environment before the module reads it.
      throw new GeneralSecurityException(
          "--keys "
              + spec
              + ": p11-kit-client.so reads its server's address from "
              + P11KitAddress.ENV
              + " when the JVM loads it, and this JVM was started with "
              + (inEnv == null ? "none" : inEnv)
              + "; run it through the pkibench command, which starts its JVM with the address,"
              + " or start the JVM with "
              + P11KitAddress.ENV
              + "="
              + remote);
    }
    Secret pin = Secret.from(pinFile, env, PIN_ENV, "the PKCS#11 PIN");
    try {
      return new Pkcs11KeySource(pkcs11Config(spec), pin, env);
    } finally {
      pin.wipe();
    }
  }
}
