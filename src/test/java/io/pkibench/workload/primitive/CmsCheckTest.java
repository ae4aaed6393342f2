package io.pkibench.workload.primitive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.SigningKey;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.util.List;
import java.util.Map;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cms-sign --verify}'s check: one SignerInfo, over the content given, by the expected key;
 * each planted fault refused, and the good CMS cross-checked by {@code openssl cms -verify}.
 */
class CmsCheckTest {
  @TempDir static Path tmp;
  static TestKeys fixture;
  static SigningKey expected;
  static final byte[] CONTENT = "the bytes given to cms-sign".getBytes();

  @BeforeAll
  static void setUp() throws Exception {
    fixture = TestKeys.in(tmp);
    expected = fixture.keys.key("signer-rsa2048-1");
  }

  static byte[] workloadsCms(byte[] content) throws Exception {
    var factory = new CmsWorkload.Factory(true);
    var workload =
        (CmsWorkload)
            factory.create(
                new WorkloadContext(fixture.keys, false),
                Params.resolve("cms-sign", factory.params(), Map.of("alg", "rsa2048")));
    return workload.signedData(content);
  }

  /** A CMS SignedData over {@code content}, encapsulated, by {@code signers} (none or one). */
  static byte[] cms(byte[] content, List<SigningKey> signers) throws Exception {
    var generator = new CMSSignedDataGenerator();
    for (SigningKey key : signers) {
      generator.addSignerInfoGenerator(
          new JcaSignerInfoGeneratorBuilder(new JcaDigestCalculatorProviderBuilder().build())
              .build(
                  new JcaContentSignerBuilder("SHA256withRSA").build(key.privateKey()),
                  key.certificate()));
      generator.addCertificates(new JcaCertStore(List.of(key.certificate())));
    }
    return generator.generate(new CMSProcessableByteArray(content), true).getEncoded();
  }

  @Test
  void check_workloadsOwnCms_acceptedAndOpensslAgrees() throws Exception {
    byte[] signed = workloadsCms(CONTENT);
    CmsWorkload.check(signed, CONTENT, expected);
    Path file = Files.write(tmp.resolve("cms.der"), signed);
    Path out = tmp.resolve("content.out");
    String verdict =
        Openssl.run(
            "cms",
            "-verify",
            "-noverify", // the signature and the content, not the chain: what the check covers
            "-binary",
            "-inform",
            "DER",
            "-in",
            file.toString(),
            "-out",
            out.toString());
    assertTrue(Openssl.succeeded(verdict), verdict);
    assertEquals(new String(CONTENT), Files.readString(out));
  }

  @Test
  void check_zeroSignerInfos_refused() throws Exception {
    byte[] none = cms(CONTENT, List.of());
    var e =
        assertThrows(SignatureException.class, () -> CmsWorkload.check(none, CONTENT, expected));
    assertEquals("expected one SignerInfo in the CMS, found 0", e.getMessage());
  }

  @Test
  void check_signedByAnotherKeyThanExpected_refused() throws Exception {
    SigningKey another = fixture.keys.key("signer-rsa2048-2");
    byte[] byAnother = cms(CONTENT, List.of(another));
    CmsWorkload.check(byAnother, CONTENT, another); // a valid CMS, by its own key
    var e =
        assertThrows(
            SignatureException.class, () -> CmsWorkload.check(byAnother, CONTENT, expected));
    assertEquals(
        "the CMS signature (1.2.840.113549.1.1.11) does not verify with the expected signer's"
            + " certificate ("
            + expected.certificate().getSubjectX500Principal().getName()
            + ")",
        e.getMessage());
  }

  @Test
  void check_overOtherContent_refused() throws Exception {
    byte[] overOther = workloadsCms("other bytes than those given".getBytes());
    var e =
        assertThrows(
            SignatureException.class, () -> CmsWorkload.check(overOther, CONTENT, expected));
    assertEquals("the CMS encapsulates other content than the bytes given to sign", e.getMessage());
  }
}
