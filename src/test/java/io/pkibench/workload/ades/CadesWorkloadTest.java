package io.pkibench.workload.ades;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.SigningKey;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.time.InstantSource;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CAdES made through DSS with our keys, checked by BouncyCastle in the workload and by openssl cms
 * here.
 */
class CadesWorkloadTest {
  /**
   * The CAdES types' default document: the size asked, random bytes from a fixed seed (the same
   * every run, so runs compare), not a block of zeros that every signature would share.
   */
  @Test
  void sampleDocument_cades_theSizeAskedOfSeededRandomBytes() throws Exception {
    byte[] document = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 4096);
    assertEquals(4096, document.length);
    assertNotEquals(4096, IntStream.range(0, 4096).filter(k -> document[k] == 0).count());
    assertArrayEquals(document, AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 4096));
  }

  @TempDir static Path tmp;
  static TestKeys fixture;

  @BeforeAll
  static void setUp() {
    fixture = TestKeys.in(tmp);
  }

  static Workload workload(boolean timestamped, Map<String, String> params) throws Exception {
    return fixture.workload(new CadesWorkload.Factory(timestamped), params);
  }

  @Test
  void run_everyLevelAndPackaging_everyOperationSucceeds() throws Exception {
    for (boolean t : new boolean[] {false, true}) {
      for (String packaging : new String[] {"detached", "enveloping"}) {
        try (Workload w = workload(t, Map.of("packaging", packaging, "size", "4k", "certs", "2"))) {
          MeasuredRun.of("cades " + packaging + (t ? " -T" : ""), w).assertEverySucceeded();
        }
      }
    }
    try (Workload w = workload(false, Map.of("alg", "ecdsa-p256", "size", "1k"))) {
      MeasuredRun.of("cades ecdsa-p256", w).assertEverySucceeded();
    }
  }

  @Test
  void run_signatureValueFlippedByTheProvider_everyOperationCountedFailed() throws Exception {
    try (Workload w =
        new CadesWorkload.Factory(false)
            .create(
                new WorkloadContext(
                    FaultyKeys.flippingEveryOutput(fixture.keys), true, () -> fixture.pki),
                Params.resolve(
                    "cades", new CadesWorkload.Factory(false).params(), Map.of("size", "4k")))) {
      MeasuredRun.of("cades with flipped signatures", w)
          .assertEveryFailedWith("the CAdES signature does not verify with BouncyCastle");
    }
    // At B-T, DSS validates the signature before asking for its time-stamp, so its refusal comes
    // first.
    try (Workload w =
        new CadesWorkload.Factory(true)
            .create(
                new WorkloadContext(
                    FaultyKeys.flippingEveryOutput(fixture.keys), true, () -> fixture.pki),
                Params.resolve(
                    "cades-t", new CadesWorkload.Factory(true).params(), Map.of("size", "4k")))) {
      MeasuredRun.of("cades-t with flipped signatures", w)
          .assertEveryFailedWith("Cryptographic signature verification has failed");
    }
  }

  /**
   * The TSA's key and certificate are another PKI's: DSS embeds the token, our B-T check refuses
   * its chain, the run counts each.
   */
  @Test
  void run_cadesTWithTheTsaOfAnotherPki_everyOperationCountedFailed() throws Exception {
    var keys =
        FaultyKeys.withKeyFrom(fixture.keys, "tsa", TestKeys.in(tmp.resolve("elsewhere")).keys);
    var factory = new CadesWorkload.Factory(true);
    try (Workload w =
        factory.create(
            new WorkloadContext(keys, true, () -> fixture.pki),
            Params.resolve("cades-t", factory.params(), Map.of("size", "4k")))) {
      MeasuredRun.of("cades-t stamped by another PKI's TSA", w, java.time.Duration.ofSeconds(1))
          .assertEveryFailedWith(
              "the CAdES signature time-stamp's TSA certificate does not chain to the trust anchor");
    }
  }

  /**
   * The TSA signs through a provider that flips a bit: DSS embeds the token unchecked, ours refuses
   * its signature.
   */
  @Test
  void run_cadesTWithTheTsaSignatureFlipped_everyOperationCountedFailed() throws Exception {
    var keys = FaultyKeys.flippingOutputsOf(fixture.keys, "tsa");
    var factory = new CadesWorkload.Factory(true);
    try (Workload w =
        factory.create(
            new WorkloadContext(keys, true, () -> fixture.pki),
            Params.resolve("cades-t", factory.params(), Map.of("size", "4k")))) {
      MeasuredRun.of("cades-t with flipped token signatures", w, java.time.Duration.ofSeconds(1))
          .assertEveryFailedWith(
              "the CAdES signature time-stamp does not verify with its TSA certificate");
    }
  }

  @Test
  void check_flippedSignatureValueOtherContentOrAnotherCasCertificate_rejected() throws Exception {
    byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 4096);
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    TwoPhaseSigner signer = new TwoPhaseSigner(null, InstantSource.system());
    byte[] cms =
        signer.sign(
            TwoPhaseSigner.Format.CADES,
            new InMemoryDocument(content, "doc.bin"),
            key,
            SignaturePackaging.DETACHED);
    AdesChecks.check(
        TwoPhaseSigner.Format.CADES,
        cms,
        content,
        key,
        fixture.pki.certificate("root-ca")); // the untouched signature passes

    SigningKey flipping = FaultyKeys.flippingEveryOutput(fixture.keys).key("signer-rsa2048-1");
    byte[] flippedValue =
        signer.sign(
            TwoPhaseSigner.Format.CADES,
            new InMemoryDocument(content, "doc.bin"),
            flipping,
            SignaturePackaging.DETACHED);
    var e =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.CADES,
                    flippedValue,
                    content,
                    key,
                    fixture.pki.certificate("root-ca")));
    assertEquals("the CAdES signature does not verify with BouncyCastle", e.getMessage());

    byte[] otherContent = content.clone();
    otherContent[100] ^= 0x01;
    var digest =
        assertThrows(
            Exception.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.CADES,
                    cms,
                    otherContent,
                    key,
                    fixture.pki.certificate("root-ca")));
    assertTrue(
        digest.getMessage().contains("message-digest attribute value does not match"),
        digest.toString());

    // signer-rsa2048-2 is issued by intermediate-b, signer-rsa2048-1 by intermediate-a
    SigningKey anotherCas = fixture.keys.key("signer-rsa2048-2");
    var foreign =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.CADES,
                    cms,
                    content,
                    anotherCas,
                    fixture.pki.certificate("root-ca")));
    assertEquals("the CAdES signature does not verify with BouncyCastle", foreign.getMessage());
  }

  /**
   * The check is of the one signature the service made: a CMS carrying a second SignerInfo (someone
   * else's, valid on its own) beside it, or none at all, is refused by its count, not passed on the
   * first signer that verifies.
   */
  @Test
  void check_aSecondSignerInfoOrNone_refusedByTheirCount() throws Exception {
    byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 4096);
    SigningKey key = fixture.keys.key("signer-rsa2048-1");
    TwoPhaseSigner signer = new TwoPhaseSigner(null, InstantSource.system());
    var doc = new InMemoryDocument(content, "doc.bin");
    var ours =
        new org.bouncycastle.cms.CMSSignedData(
            signer.sign(TwoPhaseSigner.Format.CADES, doc, key, SignaturePackaging.DETACHED));
    var theirs =
        new org.bouncycastle.cms.CMSSignedData(
            signer.sign(
                TwoPhaseSigner.Format.CADES,
                doc,
                fixture.keys.key("signer-rsa2048-2"),
                SignaturePackaging.DETACHED));
    var both = new java.util.ArrayList<>(ours.getSignerInfos().getSigners());
    both.addAll(theirs.getSignerInfos().getSigners());
    byte[] twoSigners =
        org.bouncycastle.cms.CMSSignedData.replaceSigners(
                ours, new org.bouncycastle.cms.SignerInformationStore(both))
            .getEncoded();
    var two =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.CADES,
                    twoSigners,
                    content,
                    key,
                    fixture.pki.certificate("root-ca")));
    assertEquals("expected one SignerInfo, found 2", two.getMessage());

    byte[] noSigner =
        org.bouncycastle.cms.CMSSignedData.replaceSigners(
                ours, new org.bouncycastle.cms.SignerInformationStore(java.util.List.of()))
            .getEncoded();
    var none =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.CADES,
                    noSigner,
                    content,
                    key,
                    fixture.pki.certificate("root-ca")));
    assertEquals("expected one SignerInfo, found 0", none.getMessage());
  }

  @Test
  void detachedBT_verifiesWithOpensslCmsAndTamperFails() throws Exception {
    byte[] content =
        Files.readAllBytes(
            fixture.pki.certificatePem("root-ca")); // any bytes will do; these are at hand
    Path doc = Files.write(tmp.resolve("doc.bin"), content);
    TwoPhaseSigner signer =
        new TwoPhaseSigner(
            new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
            InstantSource.system());
    Path sig =
        Files.write(
            tmp.resolve("cades-t.p7s"),
            signer.sign(
                TwoPhaseSigner.Format.CADES_T,
                new InMemoryDocument(content, "doc.bin"),
                fixture.keys.key("signer-rsa2048-2"),
                SignaturePackaging.DETACHED));

    String ok =
        Openssl.run(
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            sig.toString(),
            "-content",
            doc.toString(),
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-certfile",
            fixture.pki.caChainPem().toString(),
            "-out",
            "/dev/null");
    assertTrue(ok.startsWith("0:") && ok.contains("Verification successful"), ok);
    String printed =
        Openssl.run("cms", "-cmsout", "-print", "-inform", "DER", "-in", sig.toString());
    assertTrue(
        printed.contains("id-smime-aa-timeStampToken"), "B-T carries a signature time-stamp");
    assertTrue(
        printed.contains("id-smime-aa-signingCertificateV2"), "B-B signed attributes present");

    content[10] ^= 1;
    Path tampered = Files.write(tmp.resolve("tampered.bin"), content);
    String bad =
        Openssl.run(
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            sig.toString(),
            "-content",
            tampered.toString(),
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-certfile",
            fixture.pki.caChainPem().toString(),
            "-out",
            "/dev/null");
    assertTrue(!bad.startsWith("0:"), "one changed byte must fail: " + bad);
  }

  @Test
  void envelopingBB_verifiesWithOpensslAndYieldsTheContent() throws Exception {
    byte[] content = "pague 100 reais".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Path sig =
        Files.write(
            tmp.resolve("cades.p7s"),
            new TwoPhaseSigner(null, java.time.InstantSource.system())
                .sign(
                    TwoPhaseSigner.Format.CADES,
                    new InMemoryDocument(content, "x.txt"),
                    fixture.keys.key("signer-rsa2048-1"),
                    SignaturePackaging.ENVELOPING));
    Path out = tmp.resolve("extracted.txt");
    String ok =
        Openssl.run(
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            sig.toString(),
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-certfile",
            fixture.pki.caChainPem().toString(),
            "-out",
            out.toString());
    assertTrue(ok.startsWith("0:"), ok);
    assertTrue(java.util.Arrays.equals(content, Files.readAllBytes(out)));
  }
}
