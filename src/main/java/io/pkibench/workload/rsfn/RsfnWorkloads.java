package io.pkibench.workload.rsfn;

import com.google.protobuf.ByteString;
import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.ErrorCode;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.formats.rsfn.Treatment;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.RsfnEnvelopeService;
import io.pkibench.keys.SigningKey;
import io.pkibench.keyserver.protocol.RsfnPackRequest;
import io.pkibench.keyserver.protocol.RsfnUnpackRequest;
import io.pkibench.keyserver.protocol.RsfnUnpackResponse;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.KeptAnswers;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifySample;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The rsfn study's operations on a payload of {@code size} bytes: {@code rsfn-pack} packs it from
 * one test-PKI signer to another, {@code rsfn-unpack} unpacks envelopes packed for the recipient
 * beforehand (a pool drawn in turn). {@code mode=local} runs the codec here with the keys of {@code
 * --keys} (software, a token, or a key server's JCA provider: one remote RSA operation each);
 * {@code mode=remote} asks the key-server cluster of {@code --keys remote:…} to pack or unpack on
 * the node, as the original's clients did.
 */
public final class RsfnWorkloads {
  private RsfnWorkloads() {}

  public static final String SENDER = "signer-rsa2048-1";
  public static final String RECIPIENT = "signer-rsa2048-2";

  abstract static class Factory implements WorkloadFactory {
    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>();
      int size = Params.parseBytes(params.get("size"));
      if (size < 1 || size > Protocol3.DEFAULT_MAX_PAYLOAD_BYTES)
        problems.add("-p size=" + params.get("size") + ": give 1 byte to 64m, e.g. 1024 or 64k");
      if (params.asMap().getOrDefault("mode", "local").equals("remote")
          && !keys.startsWith("remote:")) {
        problems.add(
            "-p mode=remote: the key-server nodes pack and unpack; give them with --keys remote:HOST:PORT,… (or -p mode=local)");
      }
      if (params.asMap().containsKey("pool")) {
        int pool = poolSize(params);
        if (pool < 1)
          problems.add("-p pool=" + params.get("pool") + ": give a whole number from 1 to 100000");
      }
      return problems;
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free("size", "1024", "payload bytes, e.g. 1024, 64k"),
          ParamSpec.free("from", SENDER, "the sender's key alias (an RSA-2048 signer)"),
          ParamSpec.free("to", RECIPIENT, "the recipient's key alias (an RSA-2048 signer)"),
          ParamSpec.choice(
              "gzip",
              "false",
              "compress the payload (C04 8, a file) before signing",
              "false",
              "true"),
          ParamSpec.choice(
              "encrypt",
              "true",
              "encrypt (AES-256-GCM, key wrapped for the recipient); false: C04 3",
              "true",
              "false"),
          ParamSpec.choice(
              "mode",
              "local",
              "local: the codec in this JVM, keys from --keys; remote: the key-server nodes of --keys remote:… pack and unpack",
              "local",
              "remote"));
    }
  }

  /** {@code -p pool}, or -1 when it is not a whole number from 1 to 100,000. */
  static int poolSize(Params params) {
    try {
      int n = Integer.parseInt(params.get("pool"));
      return n >= 1 && n <= 100_000 ? n : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * The payload every operation carries: XML-like text (so that gzip has something to do) of
   * exactly {@code size} bytes.
   */
  public static byte[] payload(int size) {
    StringBuilder s = new StringBuilder(size + 128);
    SplittableRandom random = new SplittableRandom(1024);
    s.append("<?xml version=\"1.0\"?><DOC xmlns=\"http://www.bcb.gov.br/SPB/STR0008.xsd\">");
    while (s.length() < size)
      s.append("<Grupo><NumCtrlIF>")
          .append(random.nextLong(1L << 48))
          .append("</NumCtrlIF><VlrLanc>")
          .append(random.nextInt(1_000_000))
          .append(".00</VlrLanc></Grupo>");
    return Arrays.copyOf(s.toString().getBytes(StandardCharsets.US_ASCII), size);
  }

  /** What both workloads resolve from their parameters and keys. */
  record Setup(
      byte[] payload,
      Treatment treatment,
      SigningKey sender,
      SigningKey recipient,
      Protocol3 codec,
      RsfnEnvelopeService cluster,
      RsfnPackRequest packRequest,
      RsfnUnpackRequest unpackTemplate) {
    static Setup of(WorkloadContext context, Params params) throws GeneralSecurityException {
      int size = params.bytes("size");
      Treatment treatment =
          Treatment.of(
              Boolean.parseBoolean(params.get("encrypt")),
              Boolean.parseBoolean(params.get("gzip")));
      KeySource keys = context.keys();
      RsfnEnvelopeService cluster = null;
      if (params.get("mode").equals("remote")) {
        if (!(keys instanceof RsfnEnvelopeService remote)) {
          throw new IllegalArgumentException(
              "-p mode=remote: the key-server nodes pack and unpack; give them with --keys remote:HOST:PORT,…");
        }
        cluster = remote;
      }
      SigningKey sender = keys.key(params.get("from"));
      SigningKey recipient = keys.key(params.get("to"));
      Protocol3 codec =
          Protocol3.forTestPki(
              context.pki().get(),
              CaCodes.defaults(),
              context.clock(),
              keys.provider("Cipher", "AES/GCM/NoPadding"));
      byte[] payload = RsfnWorkloads.payload(size);
      // The remote requests' constant parts, encoded once rather than per operation.
      RsfnPackRequest pack =
          RsfnPackRequest.newBuilder()
              .setAlias(sender.alias())
              .setRecipientCertificate(ByteString.copyFrom(recipient.certificate().getEncoded()))
              .setPayload(ByteString.copyFrom(payload))
              .setSpecialTreatment(treatment.code)
              .build();
      RsfnUnpackRequest unpack =
          RsfnUnpackRequest.newBuilder()
              .setAlias(recipient.alias())
              .setSenderCertificate(ByteString.copyFrom(sender.certificate().getEncoded()))
              .build();
      return new Setup(payload, treatment, sender, recipient, codec, cluster, pack, unpack);
    }

    byte[] pack() throws Exception {
      if (cluster == null) return codec.pack(sender, recipient.certificate(), payload, treatment);
      return cluster.pack(packRequest).getEnvelope().toByteArray();
    }

    /**
     * What {@link #unpack} sends for {@code envelope}: made once per envelope of a pool, not per
     * operation.
     */
    RsfnUnpackRequest unpackRequest(byte[] envelope) {
      return cluster == null
          ? null
          : unpackTemplate.toBuilder().setEnvelope(ByteString.copyFrom(envelope)).build();
    }

    /**
     * The payload, or throws with the C03 code and why: a refused envelope is a failed operation.
     */
    byte[] unpack(byte[] envelope, RsfnUnpackRequest request) throws Exception {
      if (cluster == null) return codec.unpack(recipient, sender.certificate(), envelope).payload();
      RsfnUnpackResponse answer = cluster.unpack(request);
      if (answer.getErrorCode() != 0)
        throw new IllegalStateException(
            "refused with C03 "
                + ErrorCode.of(answer.getErrorCode()).hex()
                + ": "
                + answer.getMessage());
      return answer.getPayload().toByteArray();
    }

    void check(byte[] unpacked) {
      if (!Arrays.equals(unpacked, payload))
        throw new IllegalStateException("the unpacked payload differs from the packed one");
    }

    X509Certificate senderCertificate() {
      return sender.certificate();
    }
  }

  public static final class Pack extends Factory {
    @Override
    public String name() {
      return "rsfn-pack";
    }

    @Override
    public String description() {
      return "RSFN protocol 3 packaging: sign (SHA256withRSA), AES-256-GCM, wrap the key for the recipient; "
          + SENDER
          + " to "
          + RECIPIENT;
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> list = new ArrayList<>(super.params());
      list.add(KeptAnswers.SPEC);
      return list;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      Setup setup = Setup.of(context, params);
      boolean verify = context.verify();
      // With --verify the envelope is opened here, independently of the node that packed it.
      Protocol3 opener = setup.codec();
      if (!verify) return worker -> (Operation) setup::pack;
      // the first envelope whose check passed, with its payload: study rsfn's sample
      KeptAnswers kept = KeptAnswers.in(params.get(KeptAnswers.PARAM));
      return worker -> {
        VerifySample sample = context.verifySample(worker);
        return (CheckedOperation)
            () -> {
              byte[] envelope = setup.pack();
              if (!sample.next()) return false;
              byte[] payload =
                  opener.unpack(setup.recipient(), setup.senderCertificate(), envelope).payload();
              setup.check(payload);
              kept.keep(envelope, payload);
              return true;
            };
      };
    }
  }

  public static final class Unpack extends Factory {
    @Override
    public String name() {
      return "rsfn-unpack";
    }

    @Override
    public String description() {
      return "RSFN protocol 3 unpackaging of envelopes packed beforehand for "
          + RECIPIENT
          + ": unwrap, decrypt, verify, check every header field";
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> list = new ArrayList<>(super.params());
      list.add(ParamSpec.free("pool", "64", "how many different envelopes to unpack in turn"));
      return list;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      Setup setup = Setup.of(context, params);
      int count = poolSize(params);
      byte[][] pool = new byte[count][];
      RsfnUnpackRequest[] requests = new RsfnUnpackRequest[count];
      for (int i = 0; i < count; i++) {
        pool[i] = setup.pack();
        requests[i] = setup.unpackRequest(pool[i]);
      }
      boolean verify = context.verify();
      return worker -> {
        int[] next = {worker % pool.length};
        if (!verify)
          return (Operation)
              () -> {
                setup.unpack(pool[next[0]], requests[next[0]]);
                next[0] = next[0] + 1 == pool.length ? 0 : next[0] + 1;
              };
        // The node's answer (the payload it unpacked) compared with the one packed
        VerifySample sample = context.verifySample(worker);
        return (CheckedOperation)
            () -> {
              byte[] payload = setup.unpack(pool[next[0]], requests[next[0]]);
              next[0] = next[0] + 1 == pool.length ? 0 : next[0] + 1;
              if (!sample.next()) return false;
              setup.check(payload);
              return true;
            };
      };
    }
  }

  /**
   * The cryptographic floor under one packaging, without the protocol: one private RSA-2048
   * operation (the signature), one public (wrapping key ‖ IV) and AES-256-GCM of the payload,
   * through the same providers the codec uses. {@code rsfn-pack} and {@code rsfn-unpack} measured
   * beside it say what the header, the checks and the copies cost.
   */
  public static final class Ceiling extends Factory {
    @Override
    public String name() {
      return "rsfn-ceiling";
    }

    @Override
    public String description() {
      return "the RSA-bound ceiling of an RSFN packaging: one RSA-2048 signature, one RSA-2048 encryption and AES-256-GCM of the payload, nothing else";
    }

    @Override
    public List<ParamSpec> params() {
      return super.params().stream()
          .filter(
              p ->
                  !p.name().equals("mode")
                      && !p.name().equals("gzip")
                      && !p.name().equals("encrypt"))
          .toList();
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      int size = params.bytes("size");
      SigningKey sender = context.keys().key(params.get("from"));
      PublicKey recipient = context.keys().key(params.get("to")).publicKey();
      Provider local = context.keys().provider("Cipher", "AES/GCM/NoPadding");
      byte[] payload = payload(size);
      SecureRandom random = new SecureRandom();
      return worker ->
          () -> {
            Signature signature = Signature.getInstance("SHA256withRSA", sender.provider());
            signature.initSign(sender.privateKey());
            signature.update(payload);
            signature.sign();
            byte[] keyAndIv = new byte[44];
            random.nextBytes(keyAndIv);
            Cipher aes = Cipher.getInstance("AES/GCM/NoPadding", local);
            aes.init(
                Cipher.ENCRYPT_MODE,
                new SecretKeySpec(keyAndIv, 0, 32, "AES"),
                new GCMParameterSpec(128, keyAndIv, 32, 12));
            aes.doFinal(payload);
            Cipher rsa = Cipher.getInstance("RSA/ECB/PKCS1Padding", local);
            rsa.init(Cipher.ENCRYPT_MODE, recipient);
            rsa.doFinal(keyAndIv);
          };
    }
  }
}
