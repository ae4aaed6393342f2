package io.pkibench.workload.openbao;

import io.pkibench.keys.PemKeys;
import io.pkibench.keys.TlsContexts;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.openbao.OpenBaoTokens;
import io.pkibench.pki.Secret;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The OpenBao (and Vault) workloads vault-benchmark loads a server with, {@code openbao:KIND}:
 * transit sign, verify, encrypt, decrypt and HMAC, pki issue and sign, each one HTTP call to {@code
 * --target}. With {@code --verify} each answer is checked apart from OpenBao: signatures with the
 * key's public key fetched once, ciphertexts and HMACs with the exported key, certificates chained
 * to the mount's CA.
 */
public final class OpenBaoWorkloads {
  private OpenBaoWorkloads() {}

  /** The kinds, as {@code openbao:NAME} names them. */
  public enum Kind {
    TRANSIT_SIGN(
        "transit-sign", "transit/sign: a signature over fresh bytes (prehashed for RSA and ECDSA)"),
    TRANSIT_VERIFY("transit-verify", "transit/verify: a signature made once, checked by OpenBao"),
    TRANSIT_ENCRYPT("transit-encrypt", "transit/encrypt: fresh bytes under an AES-256-GCM key"),
    TRANSIT_DECRYPT(
        "transit-decrypt", "transit/decrypt: a ciphertext made once, its plaintext compared"),
    TRANSIT_HMAC("transit-hmac", "transit/hmac: an HMAC over fresh bytes"),
    PKI_ISSUE("pki-issue", "pki/issue: OpenBao makes a key pair and a certificate for it"),
    PKI_SIGN("pki-sign", "pki/sign: a certificate for a CSR made once per worker");

    public final String flag;
    final String what;

    Kind(String flag, String what) {
      this.flag = flag;
      this.what = what;
    }

    boolean transit() {
      return flag.startsWith("transit");
    }
  }

  public static final class Factory implements WorkloadFactory {
    private final Kind kind;

    public Factory(Kind kind) {
      this.kind = kind;
    }

    @Override
    public String name() {
      return "openbao:" + kind.flag;
    }

    @Override
    public String description() {
      return "OpenBao/Vault at --target, "
          + kind.what
          + "; --verify checks each answer apart from OpenBao";
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> p = new ArrayList<>();
      p.add(
          ParamSpec.free(
              ParamSpec.TARGET,
              "",
              "OpenBao's URL, or several (a cluster) joined by commas, e.g. https://127.0.0.1:8200 ('pkibench serve openbao')"));
      p.add(
          ParamSpec.free(
              "token-env",
              OpenBaoTokens.DEFAULT_ENV,
              "the environment variable holding the token (default BAO_TOKEN, then VAULT_TOKEN)"));
      p.add(
          ParamSpec.free(
              "token-file", "", "a file holding the token (serve openbao's root-token file)"));
      p.add(
          ParamSpec.free(
              "trust",
              "",
              "PEM file with the root OpenBao's TLS certificate chains to (default: the test PKI's root)"));
      p.add(
          ParamSpec.free(
              "mount", kind.transit() ? "transit" : "pki", "where the secrets engine is mounted"));
      if (kind.transit()) {
        boolean signs = kind == Kind.TRANSIT_SIGN || kind == Kind.TRANSIT_VERIFY;
        p.add(
            ParamSpec.free(
                "key",
                signs ? "signer-rsa2048-1" : "pkibench-aes",
                signs
                    ? "the transit key (RSA, ECDSA or Ed25519)"
                    : "the transit key (AES-GCM; --verify needs it exportable, as serve openbao's pkibench-aes)"));
        p.add(
            ParamSpec.choice(
                "hash",
                "sha2-256",
                "the hash (RSA and ECDSA signatures, HMAC)",
                "sha2-256",
                "sha2-384",
                "sha2-512"));
        p.add(ParamSpec.free("size", "1k", "bytes signed, encrypted or MACed per operation"));
      } else {
        p.add(
            ParamSpec.free(
                "role",
                "ecdsa-p256",
                "the pki role (serve openbao's: rsa2048, ecdsa-p256, ed25519)"));
      }
      return p;
    }

    @Override
    public boolean usesKeys() {
      return false;
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      String target = params.get(ParamSpec.TARGET);
      if (target.isBlank())
        problems.add(
            "--target: "
                + name()
                + " needs OpenBao's URL, e.g. --target https://127.0.0.1:8200 (pkibench serve openbao)");
      else
        for (String url : target.split("[;,]")) {
          URI uri;
          try {
            uri = URI.create(url.strip());
          } catch (IllegalArgumentException e) {
            problems.add("--target " + url + ": not a URL; write e.g. https://127.0.0.1:8200");
            continue;
          }
          if (!"https".equals(uri.getScheme()) && !"http".equals(uri.getScheme())
              || uri.getHost() == null)
            problems.add("--target " + url + ": write an http(s) URL, e.g. https://127.0.0.1:8200");
        }
      if (!params.get("trust").isBlank() && !Files.isReadable(Path.of(params.get("trust"))))
        problems.add(
            "-p trust=" + params.get("trust") + ": no such readable file; give a PEM file");
      if (!params.get("token-file").isBlank()
          && !Files.isReadable(Path.of(params.get("token-file"))))
        problems.add("-p token-file=" + params.get("token-file") + ": no such readable file");
      if (kind.transit() && Params.parseBytes(params.get("size")) < 0)
        problems.add(
            "-p size=" + params.get("size") + ": write a size in bytes, like 1024, 137k or 1m");
      return problems;
    }

    @Override
    public int socketsPerWorker(Params params) {
      return 1;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      List<URI> nodes =
          Arrays.stream(params.get(ParamSpec.TARGET).split("[;,]"))
              .map(String::strip)
              .map(URI::create)
              .toList();
      X509Certificate root =
          params.get("trust").isBlank()
              ? context.pki().get().certificate("root-ca")
              : PemKeys.certificate(Files.readAllBytes(Path.of(params.get("trust"))));
      Secret token =
          OpenBaoTokens.read(
              params.get("token-file"),
              params.get("token-env"),
              context.env(),
              "-p token-env/token-file");
      OpenBaoClient client;
      try {
        client =
            new OpenBaoClient(nodes, token, TlsContexts.trusting(root), Duration.ofSeconds(30));
      } finally {
        token.wipe();
      }
      try {
        return kind.transit()
            ? new TransitWorkload(kind, client, context.verify(), params)
            : new PkiWorkload(kind, client, context.verify(), params);
      } catch (Exception e) {
        client.close();
        throw e;
      }
    }
  }
}
