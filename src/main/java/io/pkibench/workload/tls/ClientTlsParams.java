package io.pkibench.workload.tls;

import io.pkibench.formats.tls.KeyExchangeGroups;
import io.pkibench.formats.tls.TlsClient;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.PemPairs;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The {@code -p} parameters every TLS client workload takes for its engine, what it trusts and who
 * it is, and the one reading of them into a {@link TlsClient}: {@code trust} (a PEM bundle, default
 * the test PKI's root), {@code client} (an alias of {@code --keys}: software, pkcs11, remote) or
 * {@code client-cert} with {@code client-key} (PEM, or PKCS#12 with its password in the file {@code
 * client-key-password-file} or the environment variable {@code client-key-password-env} names:
 * never on the command line).
 */
public final class ClientTlsParams {
  static final String TRUST = "trust";
  static final String GROUPS = "groups";
  static final String CLIENT = "client";
  static final String CLIENT_CERT = "client-cert";
  static final String CLIENT_KEY = "client-key";
  public static final String CLIENT_KEY_PASSWORD_FILE = "client-key-password-file";
  public static final String CLIENT_KEY_PASSWORD_ENV = "client-key-password-env";

  private ClientTlsParams() {}

  /**
   * The engine, version and suite choice, trust and identity, as every TLS client workload lists
   * them.
   */
  static List<ParamSpec> specs() {
    return List.of(
        ParamSpec.choice(
            "engine",
            "auto",
            "the client's TLS engine: the JDK's JSSE or BoringSSL (netty-tcnative); auto: openssl when -p groups"
                + " is given (the hybrid groups are BoringSSL's), else jsse",
            "auto",
            "jsse",
            "openssl"),
        ParamSpec.free(
            "suite", "", "the one cipher suite to offer, IANA name (default: the engine's list)"),
        ParamSpec.free(
            "protocol", "", "the one TLS version to offer, e.g. TLSv1.2 (default: the engine's)"),
        ParamSpec.free(
            GROUPS,
            "",
            "key-exchange groups to offer, in order, e.g. X25519MLKEM768 or x25519,secp256r1 (-p engine=openssl;"
                + " default: the engine's); the group negotiated is checked against them"),
        ParamSpec.free(
            TRUST,
            "",
            "PEM file of the certificates to trust for the server (default: the test PKI's root)"),
        ParamSpec.free(
            CLIENT,
            "",
            "present this test-PKI identity (e.g. tls-client), its private key from --keys; CertificateVerify is signed there"),
        ParamSpec.free(
            CLIENT_CERT,
            "",
            "PEM file: the client certificate (chain) to present, with -p client-key"),
        ParamSpec.free(
            CLIENT_KEY,
            "",
            "the client's private key: an unencrypted PEM file, or a PKCS#12 file (.p12/.pfx) with -p client-key-password-file or -env"),
        ParamSpec.free(
            CLIENT_KEY_PASSWORD_FILE,
            "",
            "file whose first line is the PKCS#12 password (never given on the command line)"),
        ParamSpec.free(
            CLIENT_KEY_PASSWORD_ENV,
            "",
            "name of the environment variable holding the PKCS#12 password, e.g. CLIENT_P12_PASSWORD"
                + " (the name, never the password)"));
  }

  /**
   * {@code -p engine}, auto resolved: BoringSSL when groups are asked for (JSSE has no hybrid
   * group), else JSSE.
   */
  static TlsEngine engine(Params p) {
    if (!p.get("engine").equals("auto")) return TlsEngine.parse(p.get("engine"));
    return p.get(GROUPS).isBlank() ? TlsEngine.JSSE : TlsEngine.OPENSSL;
  }

  /**
   * Every problem of these parameters found without opening a key source or the test PKI, each
   * naming its flag.
   */
  static List<String> problems(Params p) {
    List<String> problems = new ArrayList<>();
    try {
      TlsEngine engine = engine(p);
      if (engine.problem() != null)
        problems.add("-p engine=" + engine.flag + ": " + engine.problem());
      else if (!p.get("suite").isEmpty() && !engine.implementsSuite(p.get("suite"))) {
        problems.add(
            "-p suite="
                + p.get("suite")
                + ": the "
                + engine.flag
                + " engine does not implement it");
      }
      if (engine.problem() == null) {
        try {
          problems.addAll(
              KeyExchangeGroups.problems(
                  "-p groups", engine, KeyExchangeGroups.parse(p.get(GROUPS))));
        } catch (IllegalArgumentException e) {
          problems.add("-p groups=" + p.get(GROUPS) + ": " + e.getMessage());
        }
      }
    } catch (IllegalArgumentException e) {
      problems.add("-p engine=" + p.get("engine") + ": " + e.getMessage());
    }
    if (!p.get(TRUST).isEmpty()) {
      try {
        trustBundle(p.get(TRUST));
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    boolean alias = !p.get(CLIENT).isEmpty(),
        cert = !p.get(CLIENT_CERT).isEmpty(),
        key = !p.get(CLIENT_KEY).isEmpty();
    if (alias && (cert || key))
      problems.add(
          "-p client and -p client-cert/-p client-key: give one identity, a --keys alias or files");
    else if (cert != key)
      problems.add(
          "-p client-cert and -p client-key go together: give the certificate and its private key");
    else if (cert) {
      try {
        fileIdentity(p, null);
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (!p.get(CLIENT_KEY_PASSWORD_FILE).isEmpty() && !key)
      problems.add("-p client-key-password-file: only with a PKCS#12 -p client-key");
    String variable = p.get(CLIENT_KEY_PASSWORD_ENV);
    if (!variable.isEmpty()) {
      if (!key) problems.add("-p client-key-password-env: only with a PKCS#12 -p client-key");
      if (!p.get(CLIENT_KEY_PASSWORD_FILE).isEmpty())
        problems.add(
            "-p client-key-password-file and -p client-key-password-env: give the password one way");
      // the value is not echoed: a password typed here by mistake must not reach the terminal or
      // the result
      if (!variable.matches("[A-Za-z_][A-Za-z0-9_]*"))
        problems.add(
            "-p client-key-password-env: give the NAME of an environment variable (letters, digits, _),"
                + " export the password in it; never the password itself");
    }
    return problems;
  }

  /** The client these parameters describe; {@code context.keys()} holds {@code -p client}'s key. */
  static TlsClient read(WorkloadContext context, Params p) throws Exception {
    List<String> problems = problems(p);
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
    TlsEngine engine = engine(p);
    List<X509Certificate> trusted =
        p.get(TRUST).isEmpty()
            ? List.of(context.pki().get().certificate("root-ca"))
            : trustBundle(p.get(TRUST));
    SigningKey identity = null;
    if (!p.get(CLIENT).isEmpty()) {
      if (context.keys() == null)
        throw new IllegalArgumentException(
            "-p client=" + p.get(CLIENT) + ": this run has no --keys to take the key from");
      try {
        identity = context.keys().key(p.get(CLIENT));
      } catch (GeneralSecurityException | RuntimeException e) {
        throw new IllegalArgumentException(
            "-p client="
                + p.get(CLIENT)
                + ": --keys "
                + context.keys().describe()
                + " has no such key: "
                + e.getMessage(),
            e);
      }
    } else if (!p.get(CLIENT_CERT).isEmpty()) {
      identity = fileIdentity(p, context.env());
    }
    if (identity != null && TlsClient.identityProblem(engine, identity) != null) {
      String flag =
          p.get(CLIENT).isEmpty()
              ? "-p client-key=" + p.get(CLIENT_KEY)
              : "-p client=" + p.get(CLIENT);
      throw new IllegalArgumentException(
          flag
              + " with -p engine="
              + engine.flag
              + ": "
              + TlsClient.identityProblem(engine, identity));
    }
    String suite = p.get("suite"), protocol = p.get("protocol");
    return new TlsClient(
        engine,
        trusted,
        identity,
        protocol.isEmpty() ? List.of() : List.of(protocol),
        suite.isEmpty() ? List.of() : List.of(suite),
        KeyExchangeGroups.parse(p.get(GROUPS)));
  }

  /**
   * Every certificate in a PEM (or DER) file; none, or an unreadable file, is refused naming {@code
   * -p trust}.
   */
  static List<X509Certificate> trustBundle(String file) {
    byte[] bytes = read(TRUST, file, "a PEM file of the certificates to trust");
    List<X509Certificate> certs = certificates(bytes);
    if (certs.isEmpty())
      throw new IllegalArgumentException(
          "-p trust="
              + file
              + ": holds no X.509 certificate; give a PEM bundle (-----BEGIN CERTIFICATE-----)");
    return certs;
  }

  private static List<X509Certificate> certificates(byte[] bytes) {
    try {
      List<X509Certificate> list = new ArrayList<>();
      for (Certificate c :
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(bytes))) list.add((X509Certificate) c);
      return list;
    } catch (GeneralSecurityException | RuntimeException e) {
      return List.of();
    }
  }

  private static byte[] read(String flag, String file, String what) {
    Path path = Path.of(file);
    if (!Files.isRegularFile(path) || !Files.isReadable(path))
      throw new IllegalArgumentException(
          "-p " + flag + "=" + file + ": no such readable file; give " + what);
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "-p " + flag + "=" + file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /**
   * The identity of {@code -p client-cert} and {@code -p client-key}, refused unless the key is the
   * certificate's; null when {@code env} is (the checks before a run, which see no environment) and
   * the PKCS#12 password is to come from it: the certificate is read, the key waits for the run.
   */
  public static SigningKey fileIdentity(Params p, Map<String, String> env) {
    String certFile = p.get(CLIENT_CERT), keyFile = p.get(CLIENT_KEY);
    List<X509Certificate> chain =
        certificates(
            read(CLIENT_CERT, certFile, "a PEM file of the client certificate (leaf first)"));
    if (chain.isEmpty())
      throw new IllegalArgumentException(
          "-p client-cert="
              + certFile
              + ": holds no X.509 certificate; give a PEM file (-----BEGIN CERTIFICATE-----)");
    byte[] keyBytes = read(CLIENT_KEY, keyFile, "the client's private key, PEM or PKCS#12");
    PrivateKey key;
    if (new String(keyBytes, StandardCharsets.ISO_8859_1)
        .contains("-----BEGIN")) { // PEM, with or without openssl's "Bag Attributes" lines first
      try {
        key = PemKeys.privateKey(keyBytes);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("-p client-key=" + keyFile + ": " + e.getMessage());
      }
    } else if (!p.get(CLIENT_KEY_PASSWORD_ENV).isEmpty() && env == null) {
      return null;
    } else {
      key = pkcs12Key(keyFile, keyBytes, password(p, env));
    }
    String mismatch = mismatch(key, chain.get(0));
    if (mismatch != null)
      throw new IllegalArgumentException(
          "-p client-key=" + keyFile + ": " + mismatch + " of -p client-cert=" + certFile);
    try {
      return new SigningKey(
          "client-cert",
          key,
          chain,
          ProviderChoice.JDK.providerFor("Signature", signatureFor(key)));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "-p client-key="
              + keyFile
              + ": the JDK cannot sign with a "
              + key.getAlgorithm()
              + " key");
    }
  }

  /**
   * The PKCS#12 password from {@code -p client-key-password-file} or the variable {@code -p
   * client-key-password-env} names, or null.
   */
  private static char[] password(Params p, Map<String, String> env) {
    String passwordFile = p.get(CLIENT_KEY_PASSWORD_FILE),
        variable = p.get(CLIENT_KEY_PASSWORD_ENV);
    if (!passwordFile.isEmpty()) {
      return new String(
              read(
                  CLIENT_KEY_PASSWORD_FILE,
                  passwordFile,
                  "a file whose first line is the PKCS#12 password"),
              StandardCharsets.UTF_8)
          .lines()
          .findFirst()
          .orElse("")
          .toCharArray();
    }
    if (variable.isEmpty()) return null;
    String value = env.get(variable);
    if (value == null) {
      throw new IllegalArgumentException(
          "-p client-key-password-env="
              + variable
              + ": the environment has no "
              + variable
              + "; export it with the PKCS#12 password before the run");
    }
    return value.toCharArray();
  }

  private static PrivateKey pkcs12Key(String file, byte[] bytes, char[] password) {
    if (password == null) {
      throw new IllegalArgumentException(
          "-p client-key="
              + file
              + ": not PEM, so read as PKCS#12, which needs its password:"
              + " -p client-key-password-file=FILE or -p client-key-password-env=VARIABLE");
    }
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(new ByteArrayInputStream(bytes), password);
      for (String alias : Collections.list(store.aliases())) {
        if (store.isKeyEntry(alias)) return (PrivateKey) store.getKey(alias, password);
      }
      throw new IllegalArgumentException(
          "-p client-key=" + file + ": the PKCS#12 file holds no private key");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "-p client-key="
              + file
              + ": not a PKCS#12 file this password opens ("
              + e.getMessage()
              + "); check its password (-p client-key-password-file or -env), or give an unencrypted PEM key");
    } finally {
      Arrays.fill(password, '\0');
    }
  }

  private static String signatureFor(PrivateKey key) {
    return PemPairs.signatureFor(key);
  }

  /** One name per key family, whichever provider read the key (see {@link PemPairs#family}). */
  static String family(String algorithm) {
    return PemPairs.family(algorithm);
  }

  /**
   * Why {@code key} is not the private half of {@code certificate}'s key, or null: a signature made
   * with one must verify with the other.
   */
  static String mismatch(PrivateKey key, X509Certificate certificate) {
    return PemPairs.mismatch(key, certificate);
  }
}
