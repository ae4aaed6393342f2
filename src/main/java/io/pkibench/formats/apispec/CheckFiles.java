package io.pkibench.formats.apispec;

import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.keys.PemKeys;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Map;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * What a spec's checks name outside the spec — an algorithm, a public key or certificate file, a
 * trust bundle — read and checked before the run; each problem goes to the spec reader's list with
 * its line.
 */
final class CheckFiles {
  /** Where a problem goes: the spec's line and what is wrong, with the fix. */
  interface Problems {
    void add(int line, String what);
  }

  private final Path directory;
  private final Problems problems;

  CheckFiles(Path directory, Problems problems) {
    this.directory = directory;
    this.problems = problems;
  }

  /** BouncyCastle's name for {@code alg}, the JDK's P1363 names included; null when it has none. */
  String algorithm(int line, String alg) {
    String name =
        alg.replace("withECDSAinP1363Format", "withPLAIN-ECDSA").replace("/PSS", "andMGF1");
    try {
      Signature.getInstance(name, Check.BC);
      return name;
    } catch (NoSuchAlgorithmException e) {
      problems.add(
          line,
          "alg "
              + OutsideText.forTerminal(alg)
              + ": no such signature algorithm; use e.g. SHA256withRSA, SHA256withRSAandMGF1 (PSS), SHA256withECDSA (DER), SHA256withPLAIN-ECDSA (P1363), Ed25519, ML-DSA-65");
      return null;
    }
  }

  Path readable(LocatedYaml node, String what) {
    if (node == null || !node.isScalar()) return null;
    Path path = directory.resolve(node.text().strip());
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      problems.add(
          node.line(),
          what
              + " "
              + path
              + ": no such readable file (relative paths start at the spec's directory)");
      return null;
    }
    return path;
  }

  PublicKey publicKey(LocatedYaml node, LocatedYaml parent) {
    if (node == null) {
      problems.add(
          parent.line(), "signature: give key: a PEM file of the public key or certificate");
      return null;
    }
    Path path = readable(node, "key");
    if (path == null) return null;
    try {
      byte[] bytes = Files.readAllBytes(path);
      SubjectPublicKeyInfo info;
      if (new String(bytes, StandardCharsets.ISO_8859_1).contains("BEGIN CERTIFICATE")) {
        info =
            SubjectPublicKeyInfo.getInstance(
                PemKeys.certificate(bytes).getPublicKey().getEncoded());
      } else {
        try (PEMParser pem =
            new PEMParser(new StringReader(new String(bytes, StandardCharsets.US_ASCII)))) {
          Object read = pem.readObject();
          if (!(read instanceof SubjectPublicKeyInfo spki))
            throw new IllegalArgumentException("not a PEM public key");
          info = spki;
        }
      }
      return new JcaPEMKeyConverter().setProvider(Check.BC).getPublicKey(info);
    } catch (IOException | IllegalArgumentException e) {
      problems.add(
          node.line(),
          "key "
              + path
              + ": holds no public key or certificate (PEM: -----BEGIN PUBLIC KEY----- or CERTIFICATE)");
      return null;
    }
  }

  CertificateTrust trust(LocatedYaml node, LocatedYaml parent, String kind) {
    if (node == null) {
      problems.add(
          parent.line(), kind + ": give trust: a PEM file of the certificates to chain to");
      return null;
    }
    Path path = readable(node, "trust");
    if (path == null) return null;
    try {
      return CertificateTrust.of(PemKeys.certificates(Files.readAllBytes(path)));
    } catch (IOException | IllegalArgumentException e) {
      problems.add(node.line(), "trust " + path + ": holds no certificate; give a PEM bundle");
      return null;
    }
  }

  /**
   * A {@code pades:} or {@code xades:} check: {@code key:} (a public key or certificate) or {@code
   * trust:} (the signer's certificate being the one the signature carries); exactly one of them.
   */
  Check.AdesCheck ades(
      int line, String kind, Template value, Template over, Map<String, LocatedYaml> keys) {
    LocatedYaml key = keys.get("key");
    LocatedYaml trust = keys.get("trust");
    if (key != null && trust != null) {
      problems.add(line, kind + ": give key: or trust:, not both");
      return null;
    }
    if (key == null && trust == null) {
      problems.add(
          line,
          kind
              + ": give key: a PEM public key or certificate"
              + ", or trust: a PEM bundle its signer must chain to");
      return null;
    }
    if (key != null) {
      PublicKey publicKey = publicKey(key, null);
      return publicKey == null
          ? null
          : new Check.AdesCheck(line, kind, value, over, publicKey, null);
    }
    CertificateTrust anchors = trust(trust, null, kind);
    return anchors == null ? null : new Check.AdesCheck(line, kind, value, over, null, anchors);
  }
}
