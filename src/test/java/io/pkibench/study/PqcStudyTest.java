package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.testing.TestKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pqc study, quick and with two signature and one KEM algorithm: its steps, its two checks, and
 * its raw FIPS samples.
 */
@org.junit.jupiter.api.Timeout(
    value = 10,
    unit = TimeUnit.MINUTES) // a study talks to its service JVM
class PqcStudyTest {
  /**
   * Each quick iteration cut to half a second, as {@code study --smoke}: the suite proves the study
   * runs and checks, not its figures.
   */
  static final Duration SMOKE = Duration.ofMillis(500);

  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @Test
  void quickStudy_primitivesHandshakesAndCapacity_checksPassWithTheHybridGroupNegotiated()
      throws Exception {
    Path out = dir.resolve("pqc.json");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    var study =
        new PqcStudy(
                List.of(
                    new PqcStudy.Signer("rsa2048", "software:jdk"),
                    new PqcStudy.Signer("ml-dsa-65", "software:jdk")),
                List.of("ml-kem-768"))
            .savingSamplesIn(dir.resolve("run-samples"));
    var options =
        new StudyOptions(true, Duration.ofSeconds(5), "software", dir.resolve("pki"), null)
            .withQuickIterationsOfAtMost(SMOKE);
    RunResult result =
        fixture
            .studyRunner(out, log)
            .run(study, options, fixture.environment("pkibench study pqc --quick"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    RunResult saved = RunResultJson.read(out);
    for (String step :
        List.of(
            PqcStudy.label("sign", "ml-dsa-65", "software:jdk"),
            PqcStudy.label("sign", "ml-dsa-65", "software:accp"),
            PqcStudy.label("decaps", "ml-kem-768", "software:jdk"),
            PqcStudy.handshakeLabel("X25519MLKEM768"),
            PqcStudy.handshakeLabel("X25519MLKEM768", true))) {
      Double perCpu = PqcChecks.opsPerCpuSecond(saved, step);
      assertTrue(perCpu != null && perCpu > 0, step + " measured per CPU-second");
    }
    // the handshakes in ABBA order, each group's figure pooled over its two rounds: between the
    // rounds' own figures
    List<String> tlsSteps =
        saved.workloads().stream()
            .map(w -> w.step().label())
            .filter(l -> l.startsWith("TLS 1.3 handshake"))
            .toList();
    assertEquals(
        List.of(
            PqcStudy.handshakeLabel("x25519") + " · round 1/2",
            PqcStudy.handshakeLabel("X25519MLKEM768") + " · round 1/2",
            PqcStudy.handshakeLabel("X25519MLKEM768") + " · round 2/2",
            PqcStudy.handshakeLabel("x25519") + " · round 2/2"),
        tlsSteps);
    List<String> mutualSteps =
        saved.workloads().stream()
            .map(w -> w.step().label())
            .filter(l -> l.startsWith("TLS 1.3 mutual"))
            .toList();
    assertEquals(
        List.of(
            PqcStudy.handshakeLabel("x25519", true) + " · round 1/2",
            PqcStudy.handshakeLabel("X25519MLKEM768", true) + " · round 1/2",
            PqcStudy.handshakeLabel("X25519MLKEM768", true) + " · round 2/2",
            PqcStudy.handshakeLabel("x25519", true) + " · round 2/2"),
        mutualSteps);
    for (String group : PqcStudy.GROUPS) {
      double first =
          PqcChecks.opsPerCpuSecond(saved, PqcStudy.handshakeLabel(group) + " · round 1/2");
      double second =
          PqcChecks.opsPerCpuSecond(saved, PqcStudy.handshakeLabel(group) + " · round 2/2");
      double pooled = PqcChecks.opsPerCpuSecond(saved, PqcStudy.handshakeLabel(group));
      assertTrue(
          pooled >= Math.min(first, second) && pooled <= Math.max(first, second),
          group + ": " + first + ", " + second + " -> " + pooled);
    }
    var checks = saved.study().checks();
    assertEquals(2, checks.size(), checks.toString());
    assertTrue(checks.stream().allMatch(c -> c.passed()), checks.toString());
    String bytes = checks.get(0).detail();
    assertTrue(
        bytes.contains("X25519MLKEM768: negotiated X25519MLKEM768")
            && bytes.contains("x25519: negotiated x25519"),
        bytes);
    // the mutual handshake carries the client's certificate chain and CertificateVerify: over a
    // kilobyte more from the client
    for (String group : PqcStudy.GROUPS) {
      long plain = clientToServer(bytes, group + ": negotiated"),
          mutual = clientToServer(bytes, "mutual " + group + ": negotiated");
      assertTrue(
          mutual > plain + 1000,
          group + ": mutual " + mutual + " B against " + plain + " B from the client; " + bytes);
    }
    String capacity = checks.get(1).detail();
    assertTrue(
        capacity.contains("pix (the SPI message's RSA-2048 signature")
            && capacity.contains("cores today"),
        capacity);
    assertTrue(capacity.contains("pix (the mutual handshake's key exchange"), capacity);

    // --save-samples: the ML-DSA-65 signatures are the measured steps' own (the JDK's, BC's,
    // ACCP's), each verifying under the test PKI's certificate of the key it was made with, as BC
    // reads the raw key; ML-DSA-44 and -87, which this run did not measure, are made here and said
    // to be
    Path samples = dir.resolve("run-samples");
    List<Sample> written =
        study.samples(samples, fixture.pki, fixture.keys, InstantSource.system());
    var bc = new BouncyCastleProvider();
    for (String base : List.of("ml-dsa-65", "ml-dsa-65-bc", "ml-dsa-65-accp")) {
      Sample sample =
          written.stream().filter(x -> x.file().equals(base + ".sig")).findFirst().orElseThrow();
      assertTrue(sample.what().contains("whose check passed"), sample.what());
      byte[] pk = Files.readAllBytes(samples.resolve(base + ".pk"));
      var key = mlDsa65(bc, pk);
      byte[] message = Files.readAllBytes(samples.resolve(base + ".msg"));
      assertEquals(1024, message.length, base + ": the 1 KiB the step signed");
      assertTrue(
          verifies(bc, key, message, Files.readAllBytes(samples.resolve(base + ".sig"))), base);
    }
    assertTrue(
        written.stream()
            .filter(x -> x.file().equals("ml-dsa-44.sig"))
            .allMatch(x -> x.what().contains("made here")),
        "a set the run did not measure is made here, and said to be");
    assertTrue(Files.notExists(samples.resolve(".answers")), "the kept answers moved into place");
  }

  /**
   * The client→server byte count of the check line that starts with {@code start} (the first one:
   * "x25519" is not "mutual x25519").
   */
  private static long clientToServer(String detail, String start) {
    for (String line : detail.split("; ")) {
      if (line.startsWith(start)) {
        var m = Pattern.compile("client→server (\\d+) B").matcher(line);
        if (m.find()) return Long.parseLong(m.group(1));
      }
    }
    throw new AssertionError("no line starting " + start + " in " + detail);
  }

  @Test
  void samples_rawFips204SignaturesVerifyWithBouncyCastle_andAFlippedByteIsRefused()
      throws Exception {
    Path samples = dir.resolve("samples");
    // --keys software, as a study gets it by default: ACCP here
    var written =
        new PqcStudy()
            .samples(
                samples,
                fixture.pki,
                new SoftwareKeySource(() -> fixture.pki, ProviderChoice.ACCP),
                InstantSource.system());
    assertEquals(7, written.size(), "three ML-DSA made here, three ML-KEM, one CMS");
    var bc = new BouncyCastleProvider();
    byte[] pk = Files.readAllBytes(samples.resolve("ml-dsa-65.pk"));
    assertEquals(1952, pk.length, "raw FIPS 204 public key, not X.509");
    var key = mlDsa65(bc, pk);
    byte[] signature = Files.readAllBytes(samples.resolve("ml-dsa-65.sig"));
    assertTrue(verifies(bc, key, Files.readAllBytes(samples.resolve("ml-dsa-65.msg")), signature));
    signature[signature.length / 2] ^= 1;
    assertTrue(!verifies(bc, key, Files.readAllBytes(samples.resolve("ml-dsa-65.msg")), signature));
    assertEquals(1088, Files.size(samples.resolve("ml-kem-768.ct")));
    assertEquals(
        2400, Files.size(samples.resolve("ml-kem-768.dk")), "raw FIPS 203 decapsulation key");
    assertTrue(Files.exists(samples.resolve("check-pqc.py")));
    // the CMS sample: RFC 9882's ML-DSA-65 identifier and SHA-512, verifying under the certificate
    // it carries, and not once a byte flips
    byte[] p7s = Files.readAllBytes(samples.resolve("cms-ml-dsa-65.p7s"));
    assertTrue(cmsVerifies(p7s), "cms-ml-dsa-65.p7s does not verify");
    var signer = new CMSSignedData(p7s).getSignerInfos().getSigners().iterator().next();
    assertEquals(NISTObjectIdentifiers.id_ml_dsa_65.getId(), signer.getEncryptionAlgOID());
    assertEquals(NISTObjectIdentifiers.id_sha512.getId(), signer.getDigestAlgOID());
    byte[] flipped = p7s.clone();
    int at = indexOf(flipped, signer.getSignature());
    flipped[at + 100] ^= 1;
    assertTrue(!cmsVerifies(flipped), "a flipped signature byte verified");
  }

  private static boolean cmsVerifies(byte[] p7s) throws Exception {
    var data = new CMSSignedData(p7s);
    var signer = data.getSignerInfos().getSigners().iterator().next();
    var holder =
        (X509CertificateHolder)
            data.getCertificates().getMatches(signer.getSID()).iterator().next();
    try {
      return signer.verify(
          new JcaSimpleSignerInfoVerifierBuilder()
              .setProvider(new BouncyCastleProvider())
              .build(holder));
    } catch (CMSException refused) {
      return false;
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
      return i;
    }
    throw new AssertionError("the signature is not in the file");
  }

  /** A raw FIPS 204 ML-DSA-65 public key as {@code p}'s key object (wrapped in its SPKI). */
  private static PublicKey mlDsa65(Provider p, byte[] pk) throws Exception {
    return KeyFactory.getInstance("ML-DSA", p)
        .generatePublic(
            new X509EncodedKeySpec(
                new SubjectPublicKeyInfo(
                        new AlgorithmIdentifier(NISTObjectIdentifiers.id_ml_dsa_65), pk)
                    .getEncoded()));
  }

  private static boolean verifies(Provider p, PublicKey key, byte[] message, byte[] signature)
      throws Exception {
    Signature v = Signature.getInstance("ML-DSA", p);
    v.initVerify(key);
    v.update(message);
    return v.verify(signature);
  }
}
