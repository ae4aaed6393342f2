package io.pkibench.workload.dss;

import eu.europa.esig.dss.enumerations.DigestAlgorithm;
import eu.europa.esig.dss.ws.dto.SignatureValueDTO;
import eu.europa.esig.dss.ws.dto.ToBeSignedDTO;
import eu.europa.esig.dss.ws.server.signing.dto.RemoteKeyEntry;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.ades.Signers;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifySample;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * DSS's server signing: {@code POST /server-signing/sign/{alias}/SHA256} with the bytes to sign;
 * the key stays on the server, which answers the signature value. {@code --verify} checks it
 * against the key's certificate, read once from {@code /server-signing/key/{alias}}.
 */
public final class DssServerSignWorkload implements Workload {
  private final DssClient client;
  private final List<String> aliases;
  private final List<X509Certificate> certificates;
  private final int size;
  private final boolean verify;

  /** Under {@code verify}, one answer in this many is checked ({@code --verify-sample}). */
  private final int verifyEvery;

  private DssServerSignWorkload(
      DssClient client,
      List<String> aliases,
      List<X509Certificate> certificates,
      int size,
      boolean verify,
      int verifyEvery) {
    this.client = client;
    this.aliases = aliases;
    this.certificates = certificates;
    this.size = size;
    this.verify = verify;
    this.verifyEvery = verifyEvery;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "dss:server-sign";
    }

    @Override
    public String description() {
      return "a signature by EU DSS's server-signing API at --target: the key stays on the server";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          DssWorkloads.TARGET,
          DssWorkloads.TRUST,
          Signers.ALG,
          Signers.CERTS,
          ParamSpec.free(
              "size", "1k", "bytes sent to be signed (a CAdES's signed attributes are about 1k)"));
    }

    @Override
    public boolean usesKeys() {
      return false;
    }

    @Override
    public List<String> problems(Params params, String keys) {
      return DssWorkloads.problems(params);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      DssClient client = DssWorkloads.client(context, params);
      try {
        KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
        List<String> aliases = new ArrayList<>();
        List<X509Certificate> certificates = new ArrayList<>();
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        for (int i = 1; i <= Integer.parseInt(params.get("certs")); i++) {
          String alias = Entity.signerAlias(alg, i);
          RemoteKeyEntry entry = client.get("server-signing/key/" + alias, RemoteKeyEntry.class);
          if (entry.getCertificate() == null)
            throw new IOException("DSS's server-signing token has no key '" + alias + "'");
          aliases.add(alias);
          certificates.add(
              (X509Certificate)
                  x509.generateCertificate(
                      new ByteArrayInputStream(entry.getCertificate().getEncodedCertificate())));
        }
        return new DssServerSignWorkload(
            client,
            aliases,
            certificates,
            params.bytes("size"),
            context.verify(),
            context.verifyEvery());
      } catch (Exception e) {
        client.close();
        throw e;
      }
    }
  }

  @Override
  public Operation newOperation(int worker) {
    SplittableRandom random = new SplittableRandom(worker);
    int[] turn = {worker};
    byte[] data = new byte[size];
    if (!verify) return () -> signature(random, data, turn[0]++ % aliases.size());
    // Under --verify each signature the server answers (one in --verify-sample) is checked over
    // the bytes sent: ok counts them
    VerifySample sample = new VerifySample(verifyEvery, worker);
    return (CheckedOperation)
        () -> {
          int index = turn[0]++ % aliases.size();
          SignatureValueDTO value = signature(random, data, index);
          if (!sample.next()) return false;
          check(index, data, value);
          return true;
        };
  }

  /** One server signature over fresh bytes written into {@code data}. */
  private SignatureValueDTO signature(SplittableRandom random, byte[] data, int index)
      throws Exception {
    random.nextBytes(data);
    SignatureValueDTO value =
        client.post(
            "server-signing/sign/" + aliases.get(index) + "/" + DigestAlgorithm.SHA256.name(),
            new ToBeSignedDTO(data),
            SignatureValueDTO.class);
    if (value.getValue() == null || value.getAlgorithm() == null)
      throw new IOException("server signing answered no signature value");
    return value;
  }

  /** Throws unless {@code value} verifies over {@code data} with alias {@code index}'s key. */
  private void check(int index, byte[] data, SignatureValueDTO value) throws Exception {
    Signature check = Signature.getInstance(value.getAlgorithm().getJCEId());
    check.initVerify(certificates.get(index).getPublicKey());
    check.update(data);
    if (!check.verify(value.getValue()))
      throw new IOException(
          "the server's signature does not verify with " + aliases.get(index) + "'s certificate");
  }

  @Override
  public void close() {
    client.close();
  }
}
