package io.pkibench.workload.ades;

import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TwoPhaseSigner;
import static org.junit.jupiter.api.Assertions.assertTrue;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import io.pkibench.testing.Openssl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CAdES made through DSS with our keys, checked by BouncyCastle in the workload and by openssl cms here. */
class CadesWorkloadTest {
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
  void operations_everyLevelAndPackaging_verifyThemselves() throws Exception {
    for (boolean t : new boolean[] {false, true}) {
      for (String packaging : new String[] {"detached", "enveloping"}) {
        try (Workload w = workload(t, Map.of("packaging", packaging, "size", "4k", "certs", "2"))) {
          Operation op = w.newOperation(0);
          for (int i = 0; i < 4; i++) op.execute();
        }
      }
    }
    try (Workload w = workload(false, Map.of("alg", "ecdsa-p256", "size", "1k"))) {
      w.newOperation(1).execute();
    }
  }

  @Test
  void detachedBT_verifiesWithOpensslCmsAndTamperFails() throws Exception {
    byte[] content = Files.readAllBytes(fixture.pki.certificatePem("root-ca")); // any bytes will do; these are at hand
    Path doc = Files.write(tmp.resolve("doc.bin"), content);
    TwoPhaseSigner signer = new TwoPhaseSigner(new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()), InstantSource.system());
    Path sig = Files.write(tmp.resolve("cades-t.p7s"), signer.sign(TwoPhaseSigner.Format.CADES_T, new InMemoryDocument(content, "doc.bin"),
        fixture.keys.key("signer-rsa2048-2"), SignaturePackaging.DETACHED));

    String ok = Openssl.run("cms", "-verify", "-binary", "-inform", "DER", "-in", sig.toString(), "-content", doc.toString(),
        "-CAfile", fixture.pki.certificatePem("root-ca").toString(), "-certfile", fixture.pki.caChainPem().toString(), "-out", "/dev/null");
    assertTrue(ok.startsWith("0:") && ok.contains("Verification successful"), ok);
    String printed = Openssl.run("cms", "-cmsout", "-print", "-inform", "DER", "-in", sig.toString());
    assertTrue(printed.contains("id-smime-aa-timeStampToken"), "B-T carries a signature time-stamp");
    assertTrue(printed.contains("id-smime-aa-signingCertificateV2"), "B-B signed attributes present");

    content[10] ^= 1;
    Path tampered = Files.write(tmp.resolve("tampered.bin"), content);
    String bad = Openssl.run("cms", "-verify", "-binary", "-inform", "DER", "-in", sig.toString(), "-content", tampered.toString(),
        "-CAfile", fixture.pki.certificatePem("root-ca").toString(), "-certfile", fixture.pki.caChainPem().toString(), "-out", "/dev/null");
    assertTrue(!bad.startsWith("0:"), "one changed byte must fail: " + bad);
  }

  @Test
  void envelopingBB_verifiesWithOpensslAndYieldsTheContent() throws Exception {
    byte[] content = "pague 100 reais".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Path sig = Files.write(tmp.resolve("cades.p7s"), new TwoPhaseSigner(null, java.time.InstantSource.system()).sign(TwoPhaseSigner.Format.CADES,
        new InMemoryDocument(content, "x.txt"), fixture.keys.key("signer-rsa2048-1"), SignaturePackaging.ENVELOPING));
    Path out = tmp.resolve("extracted.txt");
    String ok = Openssl.run("cms", "-verify", "-binary", "-inform", "DER", "-in", sig.toString(),
        "-CAfile", fixture.pki.certificatePem("root-ca").toString(), "-certfile", fixture.pki.caChainPem().toString(), "-out", out.toString());
    assertTrue(ok.startsWith("0:"), ok);
    assertTrue(java.util.Arrays.equals(content, Files.readAllBytes(out)));
  }

}
