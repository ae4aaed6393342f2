package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.ades.TimestampWorkload;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.InstantSource;
import java.util.Map;
import org.bouncycastle.asn1.cmp.PKIStatus;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our RFC 3161 tokens as openssl sees them, a tampered document refused, bad requests answered with
 * a rejection.
 */
class TimeStampAuthorityTest {
  @TempDir static Path tmp;
  static TestPki pki;
  static TimeStampAuthority tsa;

  @BeforeAll
  static void setUp() throws Exception {
    TestKeys fixture = TestKeys.in(tmp);
    pki = fixture.pki;
    tsa = new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system());
  }

  @Test
  void respond_tokenVerifiesWithOpensslAndTamperedDataFails() throws Exception {
    byte[] document =
        "contrato de prestação de serviços".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Path data = Files.write(tmp.resolve("document.txt"), document);
    var request = new TimeStampRequestGenerator();
    request.setCertReq(true);
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(document);
    var req = request.generate(NISTObjectIdentifiers.id_sha256, digest, BigInteger.valueOf(42));
    Path reply = Files.write(tmp.resolve("reply.tsr"), tsa.respond(req.getEncoded()));
    Path chain =
        Files.writeString(
            tmp.resolve("untrusted.pem"),
            Files.readString(pki.certificatePem("intermediate-a"))
                + Files.readString(pki.certificatePem("tsa")));

    String ok =
        Openssl.run(
            "ts",
            "-verify",
            "-data",
            data.toString(),
            "-in",
            reply.toString(),
            "-CAfile",
            pki.certificatePem("root-ca").toString(),
            "-untrusted",
            chain.toString());
    assertTrue(ok.startsWith("0:") && ok.contains("Verification: OK"), ok);

    document[0] ^= 1;
    Path tampered = Files.write(tmp.resolve("tampered.txt"), document);
    String bad =
        Openssl.run(
            "ts",
            "-verify",
            "-data",
            tampered.toString(),
            "-in",
            reply.toString(),
            "-CAfile",
            pki.certificatePem("root-ca").toString(),
            "-untrusted",
            chain.toString());
    assertTrue(!bad.startsWith("0:"), "a changed document must not verify: " + bad);

    String text = Openssl.run("ts", "-reply", "-in", reply.toString(), "-text");
    assertTrue(text.contains("Nonce: 0x2A") && text.contains("Policy OID: 0.4.0.2023.1.1"), text);
  }

  @Test
  void respond_garbageOrWeakDigest_rejectsInsteadOfThrowing() throws Exception {
    TimeStampResponse garbage =
        new TimeStampResponse(tsa.respond(new byte[] {0x30, 0x03, 0x02, 0x01, 0x01}));
    assertEquals(PKIStatus.REJECTION, garbage.getStatus());
    var md5ish =
        new TimeStampRequestGenerator()
            .generate(
                new org.bouncycastle.asn1.ASN1ObjectIdentifier("1.2.840.113549.2.5"), new byte[16]);
    TimeStampResponse weak = new TimeStampResponse(tsa.respond(md5ish.getEncoded()));
    assertEquals(PKIStatus.REJECTION, weak.getStatus());
    assertNotEquals(null, weak.getStatusString());
  }

  static Workload timestampWorkload(KeySource keys) throws Exception {
    var factory = new TimestampWorkload.Factory();
    return factory.create(
        new WorkloadContext(keys, true),
        Params.resolve("timestamp", factory.params(), Map.of("size", "4k")));
  }

  @Test
  void run_roundTrips_everyOneSucceeds() throws Exception {
    try (Workload w = timestampWorkload(new SoftwareKeySource(() -> pki, ProviderChoice.JDK))) {
      MeasuredRun.of("timestamp", w).assertEverySucceeded();
    }
  }

  @Test
  void run_tokenSignaturesFlipped_everyRoundTripCountedFailed() throws Exception {
    try (Workload w =
        timestampWorkload(
            FaultyKeys.flippingEveryOutput(new SoftwareKeySource(() -> pki, ProviderChoice.JDK)))) {
      MeasuredRun.of("timestamp with flipped signatures", w)
          .assertEveryFailedWith(
              "the token does not verify with its TSA certificate: signature not created by certificate");
    }
  }

  @Test
  void run_tsaCertificateOfAnotherPki_everyRoundTripCountedFailed() throws Exception {
    // our TSA's key, presented with another PKI's TSA certificate: a token no one we trust signed
    TestKeys another = TestKeys.in(tmp.resolve("another"));
    try (Workload w =
        timestampWorkload(
            FaultyKeys.withCertificatesOf(
                new SoftwareKeySource(() -> pki, ProviderChoice.JDK), another.keys))) {
      MeasuredRun.of("timestamp from an untrusted TSA", w)
          .assertEveryFailedWith(
              "the token does not verify with its TSA certificate: signature not created by certificate");
    }
  }
}
