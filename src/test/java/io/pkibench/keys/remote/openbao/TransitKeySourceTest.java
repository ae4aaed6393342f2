package io.pkibench.keys.remote.openbao;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.TlsContexts;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.pki.Secret;
import io.pkibench.server.openbao.BaoFixture;
import io.pkibench.server.openbao.OpenBaoServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.primitive.SignWorkload;
import io.pkibench.workload.tls.HandshakeWorkload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x509.DigestInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.DefaultDigestAlgorithmIdentifierFinder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * --keys openbao:… against a real bao set up as serve openbao sets it up: signatures made through
 * the JCA provider (each a transit sign call) verify with BouncyCastle and the test PKI's
 * certificate, a flipped byte does not, and the sign workload runs on them with its own check.
 */
class TransitKeySourceTest {
  @TempDir static Path dir;
  static TestKeys keys;
  static OpenBaoServer server;

  @BeforeAll
  static void startOpenBao() throws Exception {
    keys = TestKeys.in(dir);
    server = BaoFixture.start(dir.resolve("bao"), 1, keys.pki);
  }

  @AfterAll
  static void stopOpenBao() {
    if (server != null) server.close();
  }

  static KeySource open(String spec) throws Exception {
    return KeySources.open(spec, () -> keys.pki, null, Map.of(), InstantSource.system(), l -> {});
  }

  @Test
  void sign_eachKeyType_verifiesWithBouncyCastleAndTheCertificate_andNotWhenFlipped()
      throws Exception {
    byte[] message = "signed by OpenBao transit".getBytes(StandardCharsets.UTF_8);
    try (KeySource source =
        open("openbao:" + server.baseUrl() + ",token-file=" + server.tokenFile())) {
      for (String[] c :
          List.of(
              new String[] {"signer-rsa2048-1", "SHA256withRSA"},
              new String[] {"signer-ecdsa-p256-1", "SHA384withECDSA"},
              new String[] {"signer-ed25519-1", "Ed25519"})) {
        SigningKey key = source.key(c[0]);
        assertEquals(keys.pki.certificate(c[0]), key.certificate(), "the chain set in transit");
        Signature signer = Signature.getInstance(c[1], key.provider());
        signer.initSign(key.privateKey());
        signer.update(message);
        byte[] signature = signer.sign();
        assertEquals(TransitProvider.NAME, signer.getProvider().getName());
        Signature verifier = Signature.getInstance(c[1], new BouncyCastleProvider());
        verifier.initVerify(keys.pki.certificate(c[0]).getPublicKey());
        verifier.update(message);
        assertTrue(verifier.verify(signature), c[0] + " " + c[1]);
        signature[signature.length / 2] ^= 1;
        verifier.initVerify(keys.pki.certificate(c[0]).getPublicKey());
        verifier.update(message);
        boolean flippedVerifies;
        try {
          flippedVerifies = verifier.verify(signature);
        } catch (SignatureException malformed) {
          flippedVerifies = false; // a flip in ECDSA's DER may break its encoding: refused too
        }
        assertFalse(flippedVerifies, c[0] + ": a flipped byte must not verify");
      }
      assertTrue(source.nodes().get(0).calls() >= 6, "every key and signature went to OpenBao");
    }
  }

  /**
   * RSA-PSS through transit ({@code signature_algorithm=pss}, the salt as long as the digest):
   * BouncyCastle's SHA256withRSA/PSS verifies it with the certificate's key (a salt of another
   * length would not), the provider verifies it locally, a flipped byte verifies nowhere.
   */
  @Test
  void signRsaPss_verifiesWithBouncyCastleAndTheCertificate_andNotWhenFlipped() throws Exception {
    byte[] message = "signed with PSS by OpenBao transit".getBytes(StandardCharsets.UTF_8);
    try (KeySource source =
        open("openbao:" + server.baseUrl() + ",token-file=" + server.tokenFile())) {
      SigningKey key = source.key("signer-rsa2048-1");
      var publicKey = keys.pki.certificate("signer-rsa2048-1").getPublicKey();
      for (String alg : List.of("SHA256withRSA/PSS", "SHA384withRSAandMGF1")) {
        Signature signer = Signature.getInstance(alg, key.provider());
        assertEquals(TransitProvider.NAME, signer.getProvider().getName());
        signer.initSign(key.privateKey());
        signer.update(message);
        byte[] signature = signer.sign();
        Signature bc = Signature.getInstance(alg, new BouncyCastleProvider());
        bc.initVerify(publicKey);
        bc.update(message);
        assertTrue(bc.verify(signature), alg + " verifies with BouncyCastle");
        Signature local = Signature.getInstance(alg, key.provider());
        local.initVerify(publicKey);
        local.update(message);
        assertTrue(local.verify(signature), alg + " verifies through the provider");
        signature[signature.length / 2] ^= 1;
        bc.initVerify(publicKey);
        bc.update(message);
        assertFalse(bc.verify(signature), alg + ": a flipped byte must not verify");
      }
    }
  }

  /**
   * The key server signs a client's digest with NONEwithRSA over its DigestInfo and NONEwithECDSA
   * over the digest (KeyOperations): with --keys openbao: behind it, both must reach transit.
   */
  @Test
  void signOverDigest_noneWithRsaAndEcdsa_asTheKeyServerSigns_verifyOverTheMessage()
      throws Exception {
    byte[] message = "a digest signed by OpenBao transit".getBytes(StandardCharsets.UTF_8);
    try (KeySource source =
        open("openbao:" + server.baseUrl() + ",token-file=" + server.tokenFile())) {
      for (String[] c :
          List.of(
              new String[] {"signer-rsa2048-1", "NONEwithRSA", "SHA384withRSA", "SHA-384"},
              new String[] {
                "signer-ecdsa-p256-1", "NONEwithECDSA", "SHA256withECDSA", "SHA-256"
              })) {
        SigningKey key = source.key(c[0]);
        byte[] digest = MessageDigest.getInstance(c[3]).digest(message);
        byte[] input =
            c[1].equals("NONEwithRSA")
                ? new DigestInfo(new DefaultDigestAlgorithmIdentifierFinder().find(c[3]), digest)
                    .getEncoded()
                : digest;
        Signature signer = Signature.getInstance(c[1], key.provider());
        signer.initSign(key.privateKey());
        signer.update(input);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(c[2], new BouncyCastleProvider());
        verifier.initVerify(keys.pki.certificate(c[0]));
        verifier.update(message);
        assertTrue(verifier.verify(signature), c[1] + " over " + c[3] + " of the message");
      }
    }
  }

  @Test
  void signWorkload_onOpenBaoKeys_everyOperationVerifies() throws Exception {
    try (KeySource source =
        open("openbao:" + server.baseUrl() + ",token-file=" + server.tokenFile())) {
      SignWorkload.Factory factory = new SignWorkload.Factory();
      for (String alg : List.of("rsa2048", "ecdsa-p256")) {
        try (Workload w =
            factory.create(
                new WorkloadContext(source, true, () -> keys.pki),
                Params.resolve(factory.name(), factory.params(), Map.of("alg", alg)))) {
          MeasuredRun.of("sign " + alg + " on openbao", w).assertEverySucceeded();
        }
      }
    }
  }

  /**
   * A mutual TLS 1.3 handshake signs its CertificateVerify with RSASSA-PSS given as a
   * PSSParameterSpec (JSSE asks for "RSASSA-PSS", then sets MGF1 and a salt as long as the hash),
   * on both sides here: every handshake completes with the keys in transit, each signature a
   * transit call.
   */
  @Test
  void tlsHandshake_tls13WithRsaKeysInTransit_everyHandshakeCompletes() throws Exception {
    try (KeySource source =
        open("openbao:" + server.baseUrl() + ",token-file=" + server.tokenFile())) {
      var factory = new HandshakeWorkload.Factory();
      for (String keyalg : List.of("rsa2048", "ecdsa-p256")) {
        long before = source.nodes().get(0).calls();
        try (Workload w =
            factory.create(
                new WorkloadContext(source, true, () -> keys.pki),
                Params.resolve(
                    factory.name(),
                    factory.params(),
                    Map.of("protocol", "TLSv1.3", "keyalg", keyalg)))) {
          MeasuredRun.of("tls-handshake TLSv1.3 " + keyalg + " on openbao", w)
              .assertEverySucceeded();
        }
        assertTrue(
            source.nodes().get(0).calls() - before >= 2,
            keyalg + ": the handshakes' signatures went to transit");
      }
    }
  }

  @Test
  void keyWithoutChain_getsACertificateSelfSignedByTransit() throws Exception {
    Secret token = Secret.fromFile(server.tokenFile());
    try (OpenBaoClient root =
        new OpenBaoClient(
            server.urls(),
            token,
            TlsContexts.trusting(keys.pki.certificate("root-ca")),
            Duration.ofSeconds(10))) {
      root.post("transit/keys/no-chain", Map.of("type", "ecdsa-p256"));
    } finally {
      token.wipe();
    }
    try (KeySource source =
        open("openbao:" + server.baseUrl() + ",key=no-chain,token-file=" + server.tokenFile())) {
      SigningKey key = source.key("signer-ecdsa-p256-1");
      X509Certificate self = key.certificate();
      self.verify(self.getPublicKey(), new BouncyCastleProvider());
      assertEquals(List.of("no-chain"), source.aliases());
      assertTrue(self.getSubjectX500Principal().getName().contains("no-chain"));
    }
  }

  @Test
  void spec_badItems_everyProblemNamed() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> OpenBaoKeySpec.parse("openbao:key=x,token-env=A,token-file=/nonexistent/t"));
    assertTrue(e.getMessage().contains("no node URL given"), e.getMessage());
    assertTrue(e.getMessage().contains("not both"), e.getMessage());
    assertTrue(e.getMessage().contains("token-file=/nonexistent/t"), e.getMessage());
    assertEquals(
        List.of("software", "openbao:https://127.0.0.1:8200,https://127.0.0.1:8202,key=k"),
        KeySources.split("software,openbao:https://127.0.0.1:8200,https://127.0.0.1:8202,key=k"));
  }

  @Test
  void open_withoutAToken_saysWhereToPutIt() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> open("openbao:" + server.baseUrl()));
    assertTrue(e.getMessage().contains("BAO_TOKEN"), e.getMessage());
  }
}
