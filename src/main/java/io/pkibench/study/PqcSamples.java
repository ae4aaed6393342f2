package io.pkibench.study;

import io.pkibench.files.OutputFiles;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.crypto.KEM;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * The pqc study's samples ({@code --save-samples}), each checked by code pkibench did not write.
 */
final class PqcSamples {
  private PqcSamples() {}

  /** The ML-DSA sets whose signing steps keep a sample; the provider each is signed by. */
  static boolean kept(String alg) {
    return alg.startsWith("ml-dsa-");
  }

  /** Where the signing step of {@code alg} on {@code keys} keeps its sample. */
  static String token(String alg, String keys) {
    return "sign-" + alg + "-" + keys.substring(keys.indexOf(':') + 1);
  }

  /**
   * Raw FIPS 204 samples (public key, message, pure signature with an empty context): per ML-DSA
   * set and provider, the measured signing step's first signature whose check passed, its public
   * key from the test PKI's certificate of the key it signed with ({@code ml-dsa-65.*} by the JDK,
   * {@code ml-dsa-65-bc.*}, {@code ml-dsa-65-accp.*}); a JDK set no step kept is made here and said
   * to be. Raw FIPS 203 ones (ek, dk, ciphertext, shared secret) per ML-KEM set and an RFC 9882 CMS
   * SignedData, made here by the JDK (the measured KEM and CMS steps keep no sample: their keys are
   * made at set-up). And {@code check-pqc.py}, which checks them with dilithium-py and kyber-py
   * (pure-Python FIPS 204/203).
   */
  static List<Sample> samples(Path dir, TestPki pki) throws Exception {
    Files.createDirectories(dir);
    List<Sample> samples = new ArrayList<>();
    for (String keys : List.of("software:jdk", "software:bc", "software:accp")) {
      for (String alg : List.of("ml-dsa-44", "ml-dsa-65", "ml-dsa-87")) {
        String base = keys.equals("software:jdk") ? alg : alg + "-" + keys.substring(9);
        if (!StudySamples.take(dir, token(alg, keys), base + ".sig", base + ".msg")) continue;
        X509Certificate certificate =
            pki.certificate(Entity.signerAlias(KeyAlgorithm.parse(alg), 1));
        OutputFiles.replace(dir.resolve(base + ".pk"), rawPublic(certificate.getPublicKey()));
        samples.add(
            new Sample(
                base + ".sig",
                alg.toUpperCase(Locale.ROOT)
                    + " signature (FIPS 204 pure, empty context) of "
                    + base
                    + ".msg under "
                    + base
                    + ".pk, the first of the measured step 'sign · "
                    + alg
                    + " ["
                    + keys.substring(9)
                    + "]' whose check passed",
                "python3 check-pqc.py " + base,
                List.of("python3")));
      }
    }
    StudySamples.deleteTree(dir.resolve(".answers"));
    byte[] message =
        "pkibench pqc sample: a message signed with ML-DSA, pure, empty context"
            .getBytes(StandardCharsets.UTF_8);
    for (String set : List.of("ML-DSA-44", "ML-DSA-65", "ML-DSA-87")) {
      String base = set.toLowerCase(Locale.ROOT);
      if (samples.stream().anyMatch(x -> x.file().equals(base + ".sig"))) continue;
      KeyPair pair = KeyPairGenerator.getInstance(set).generateKeyPair();
      Signature s = Signature.getInstance("ML-DSA");
      s.initSign(pair.getPrivate());
      s.update(message);
      OutputFiles.replace(dir.resolve(base + ".pk"), rawPublic(pair.getPublic()));
      OutputFiles.replace(dir.resolve(base + ".msg"), message);
      OutputFiles.replace(dir.resolve(base + ".sig"), s.sign());
      samples.add(
          new Sample(
              base + ".sig",
              set
                  + " signature (FIPS 204 pure, empty context) of "
                  + base
                  + ".msg under "
                  + base
                  + ".pk, made here by the JDK: no measured step kept one",
              "python3 check-pqc.py " + base,
              List.of("python3")));
    }
    for (String set : List.of("ML-KEM-512", "ML-KEM-768", "ML-KEM-1024")) {
      String base = set.toLowerCase(Locale.ROOT);
      KeyPair pair = KeyPairGenerator.getInstance(set).generateKeyPair();
      var out = KEM.getInstance("ML-KEM").newEncapsulator(pair.getPublic()).encapsulate();
      OutputFiles.replace(dir.resolve(base + ".ek"), rawPublic(pair.getPublic()));
      OutputFiles.replace(dir.resolve(base + ".dk"), rawExpandedPrivate(pair));
      OutputFiles.replace(dir.resolve(base + ".ct"), out.encapsulation());
      OutputFiles.replace(dir.resolve(base + ".ss"), out.key().getEncoded());
      samples.add(
          new Sample(
              base + ".ct",
              set
                  + " ciphertext to "
                  + base
                  + ".ek whose decapsulation with "
                  + base
                  + ".dk is "
                  + base
                  + ".ss, made here by the JDK (the measured KEM steps make their keys at set-up)",
              "python3 check-pqc.py " + base,
              List.of("python3")));
    }
    // CMS SignedData with ML-DSA-65 (RFC 9882) by the test PKI's ML-DSA-65 signer, as the cms-sign
    // step makes it, in DER
    // the JDK's key whatever --keys says, as the other samples: ACCP names only the family
    // ("ML-DSA"), which CMS's builder cannot take
    var signer = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("signer-ml-dsa-65-1");
    var generator = new CMSSignedDataGenerator();
    var bc = new BouncyCastleProvider();
    generator.addSignerInfoGenerator(
        new JcaSignerInfoGeneratorBuilder(
                new JcaDigestCalculatorProviderBuilder().setProvider(bc).build())
            .build(
                new JcaContentSignerBuilder("ML-DSA-65")
                    .setProvider(signer.provider())
                    .build(signer.privateKey()),
                signer.certificate()));
    generator.addCertificates(new JcaCertStore(List.of(signer.certificate())));
    byte[] p7s = generator.generate(new CMSProcessableByteArray(message), true).getEncoded("DER");
    OutputFiles.replace(dir.resolve("cms-ml-dsa-65.p7s"), p7s);
    samples.add(
        new Sample(
            "cms-ml-dsa-65.p7s",
            "CMS SignedData (RFC 9882) of a message, signed attributes, ML-DSA-65 by signer-ml-dsa-65-1,"
                + " its certificate inside; made here by the JDK, as the cms-sign step makes it",
            "python3 check-pqc.py cms-ml-dsa-65",
            List.of("python3")));
    try (var script = PqcStudy.class.getResourceAsStream("check-pqc.py")) {
      OutputFiles.replace(dir.resolve("check-pqc.py"), script.readAllBytes());
    }
    return samples;
  }

  /** A public key's raw bytes: its SubjectPublicKeyInfo's BIT STRING (FIPS 203 ek, 204 pk). */
  static byte[] rawPublic(PublicKey key) {
    return SubjectPublicKeyInfo.getInstance(key.getEncoded()).getPublicKeyData().getOctets();
  }

  /**
   * The JDK writes an ML-KEM private key as RFC 9935's expandedKey: the PKCS#8 OCTET STRING holds
   * an OCTET STRING, the FIPS 203 dk.
   */
  static byte[] rawExpandedPrivate(KeyPair pair) throws IOException {
    var info = PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded());
    var inner = ASN1Primitive.fromByteArray(info.getPrivateKey().getOctets());
    return ASN1OctetString.getInstance(inner).getOctets();
  }
}
