package io.pkibench.workload.pec;

import io.pkibench.formats.pec.CertificatePathCheck;
import io.pkibench.formats.pec.DocumentKind;
import io.pkibench.formats.pec.Outgoing;
import io.pkibench.formats.pec.PecMessages;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.TestProviders;
import io.pkibench.formats.pec.Verification;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifySample;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.PublicKey;
import java.security.Signature;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pec study's two paths, each alone and in memory as the original measured them: {@code
 * pec-sign} is the sending provider's (a user's message of {@code size} bytes → acceptance receipt
 * + transport envelope, two S/MIME signatures), {@code pec-verify} the receiving provider's (an
 * envelope → its signature checked against the index, a taking-charge receipt and a delivery
 * receipt carrying the original, two signatures). {@code pec-ceiling} is the cryptography alone of
 * either path, on the same bytes with the same provider: what MIME and the documents cost is the
 * difference.
 */
public final class PecWorkloads {
  private PecWorkloads() {}

  static final int MAX_SIZE = 32 << 20;

  abstract static class Factory implements WorkloadFactory {
    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free(
              "size",
              "60k",
              "the user's message in bytes, headers and MIME included, e.g. 56k, 80k"),
          ParamSpec.free(
              "provider1",
              TestProviders.SENDER_KEY,
              "the sending provider's key alias (" + TestProviders.SENDER_DOMAIN + ")"),
          ParamSpec.free(
              "provider2",
              TestProviders.RECIPIENT_KEY,
              "the receiving provider's key alias (" + TestProviders.RECIPIENT_DOMAIN + ")"));
    }

    @Override
    public List<String> problems(Params params, String keys) {
      int size = Params.parseBytes(params.get("size"));
      return size < 512 || size > MAX_SIZE
          ? List.of("-p size=" + params.get("size") + ": give 512 bytes to 32m, e.g. 60k")
          : List.of();
    }
  }

  /** Both providers of the workloads, in this JVM, their index the two of them. */
  record Pair(PecProvider sender, PecProvider recipient, byte[] message) {
    static Pair of(WorkloadContext context, Params params) throws Exception {
      KeySource keys = context.keys();
      SigningKey k1 = keys.key(params.get("provider1"));
      SigningKey k2 = keys.key(params.get("provider2"));
      // the signer's path, validity and revocation checked on every document, as the seed's
      // provider did (its CA file and CRLs)
      ProviderIndex index =
          new ProviderIndex(
                  Map.of(
                      TestProviders.SENDER_DOMAIN,
                      k1.certificate(),
                      TestProviders.RECIPIENT_DOMAIN,
                      k2.certificate()))
              .withPathCheck(CertificatePathCheck.of(context.pki().get()));
      PecProvider p1 =
          new PecProvider(
              TestProviders.SENDER_DOMAIN,
              "pkibench provider " + TestProviders.SENDER_DOMAIN,
              k1,
              index,
              context.clock(),
              TestProviders.ZONE);
      PecProvider p2 =
          new PecProvider(
              TestProviders.RECIPIENT_DOMAIN,
              "pkibench provider " + TestProviders.RECIPIENT_DOMAIN,
              k2,
              index,
              context.clock(),
              TestProviders.ZONE);
      byte[] message =
          PecMessages.message(
              user(TestProviders.SENDER_DOMAIN),
              user(TestProviders.RECIPIENT_DOMAIN),
              "<workload.1@" + TestProviders.SENDER_DOMAIN + ">",
              "pkibench message",
              params.bytes("size"),
              1);
      return new Pair(p1, p2, message);
    }

    List<Outgoing> send(String jobId) throws Exception {
      return sender.accept(
          jobId,
          user(TestProviders.SENDER_DOMAIN),
          List.of(user(TestProviders.RECIPIENT_DOMAIN)),
          message);
    }

    byte[] envelope(String jobId) throws Exception {
      return send(jobId).stream()
          .filter(o -> o.kind() == DocumentKind.TRANSPORT)
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "the sending provider did not accept the workload's message"))
          .bytes();
    }
  }

  static String user(String domain) {
    return "user1@" + domain;
  }

  public static final class Sign extends Factory {
    @Override
    public String name() {
      return "pec-sign";
    }

    @Override
    public String description() {
      return "a PEC provider's sending path in memory: a user's message → signed acceptance receipt + signed transport envelope (S/MIME)";
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      Pair pair = Pair.of(context, params);
      boolean verify = context.verify();
      AtomicLong jobs = new AtomicLong();
      return worker -> {
        // Under --verify the provider's documents (one message in --verify-sample) are verified by
        // the receiving provider: ok counts them
        VerifySample sample = verify ? context.verifySample(worker) : null;
        CheckedOperation operation =
            () -> {
              List<Outgoing> out = pair.send("w" + jobs.incrementAndGet());
              if (out.size() != 2 || out.get(0).kind() != DocumentKind.ACCEPTANCE)
                throw new IllegalStateException(
                    "the message was not accepted: " + out.get(0).describe());
              if (sample == null || !sample.next()) return false;
              for (Outgoing o : out) {
                Verification v = pair.recipient().verify(o.bytes());
                if (!v.verified())
                  throw new IllegalStateException(
                      o.kind().value + " does not verify: " + v.problem());
              }
              return true;
            };
        // Without --verify a plain operation: its level counts no verified
        return verify ? operation : (Operation) operation::execute;
      };
    }
  }

  public static final class Verify extends Factory {
    @Override
    public String name() {
      return "pec-verify";
    }

    @Override
    public String description() {
      return "a PEC provider's receiving path in memory: a transport envelope verified against the index → signed taking-charge and delivery receipts";
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      Pair pair = Pair.of(context, params);
      byte[] envelope = pair.envelope("pool");
      boolean verify = context.verify();
      AtomicLong jobs = new AtomicLong();
      String from = pair.sender().address();
      List<String> rcpts = List.of(user(TestProviders.RECIPIENT_DOMAIN));
      return worker -> {
        // Under --verify the receipts (one envelope in --verify-sample) are verified by the
        // sending provider: ok counts them
        VerifySample sample = verify ? context.verifySample(worker) : null;
        CheckedOperation operation =
            () -> {
              List<Outgoing> out =
                  pair.recipient().receive("w" + jobs.incrementAndGet(), from, rcpts, envelope);
              if (out.size() != 3 || out.get(0).kind() != DocumentKind.TAKING_CHARGE) {
                throw new IllegalStateException(
                    "the envelope was not taken in charge: " + out.get(0).describe());
              }
              if (sample == null || !sample.next()) return false;
              for (Outgoing o : out) {
                if (o.kind() != null && !pair.sender().verify(o.bytes()).verified())
                  throw new IllegalStateException(o.kind().value + " does not verify");
              }
              return true;
            };
        // Without --verify a plain operation: its level counts no verified
        return verify ? operation : (Operation) operation::execute;
      };
    }
  }

  /**
   * The signatures and verifications one message needs on either path, over the very bytes the
   * provider signs (the signed parts of the documents it issued for the workload's message),
   * through the provider's keys: nothing of MIME, XML or the documents' assembly.
   */
  public static final class Ceiling extends Factory {
    @Override
    public String name() {
      return "pec-ceiling";
    }

    @Override
    public String description() {
      return "the cryptography alone of a PEC path (path=sign: two signatures; path=verify: one verification, two signatures) on the same bytes";
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> list = new ArrayList<>(super.params());
      list.add(
          ParamSpec.choice(
              "path",
              "sign",
              "sign: the sending provider's; verify: the receiving provider's",
              "sign",
              "verify"));
      return list;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      Pair pair = Pair.of(context, params);
      boolean sending = params.get("path").equals("sign");
      List<Outgoing> documents =
          sending
              ? pair.send("ceiling")
              : pair.recipient()
                  .receive(
                      "ceiling",
                      pair.sender().address(),
                      List.of(user(TestProviders.RECIPIENT_DOMAIN)),
                      pair.envelope("ceiling"));
      List<byte[]> signedParts = new ArrayList<>();
      for (Outgoing o : documents) if (o.kind() != null) signedParts.add(signedPart(o.bytes()));
      byte[] verified = sending ? null : signedPart(pair.envelope("ceiling-envelope"));
      SigningKey sender = context.keys().key(params.get("provider1"));
      SigningKey key = sending ? sender : context.keys().key(params.get("provider2"));
      PublicKey peer = sender.publicKey();
      byte[] peerSignature;
      if (verified != null) {
        Signature s = Signature.getInstance("SHA256withRSA", sender.provider());
        s.initSign(sender.privateKey());
        s.update(verified);
        peerSignature = s.sign();
      } else {
        peerSignature = null;
      }
      return worker ->
          () -> {
            if (verified != null) {
              Signature v = Signature.getInstance("SHA256withRSA");
              v.initVerify(peer);
              v.update(verified);
              if (!v.verify(peerSignature))
                throw new IllegalStateException("the ceiling's own signature does not verify");
            }
            for (byte[] part : signedParts) {
              Signature s = Signature.getInstance("SHA256withRSA", key.provider());
              s.initSign(key.privateKey());
              s.update(part);
              s.sign();
            }
          };
    }
  }

  /** The bytes a document's signature covers: its first part as written (RFC 5751 §3.5). */
  static byte[] signedPart(byte[] document) throws Exception {
    MimeMessage m = new MimeMessage(PecProvider.SESSION, new ByteArrayInputStream(document));
    MimeMultipart signed = (MimeMultipart) m.getContent();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    signed.getBodyPart(0).writeTo(out);
    return out.toByteArray();
  }
}
