package io.pkibench.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * OpenSSL's TSA ({@code openssl ts -reply}) and OCSP responder ({@code openssl ocsp -index}), one
 * process per request, as backends of a {@link DerFront}: services pkibench did not write. OpenSSL
 * 3.0's {@code ocsp -port} cannot bind to loopback alone (it takes a port number and listens on
 * every interface), so its responder runs per request from files instead: the same response code,
 * with the HTTP part in the front. Each of {@code slots} concurrent requests has its own files
 * (and, for the TSA, its own serial file, which openssl rewrites on every token).
 */
public final class OpensslServices {
  private OpensslServices() {}

  /**
   * {@code openssl ts -reply} signing with {@code key}/{@code certificate}, {@code chain} added to
   * each token, policy 1.2.3.4.1.
   */
  public static DerFront.Backend tsa(
      Path dir, X509Certificate certificate, PrivateKey key, List<X509Certificate> chain, int slots)
      throws Exception {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("tsa.pem"), TestCertificates.pem(certificate));
    Files.writeString(dir.resolve("tsa.key"), TestCertificates.pem(key));
    StringBuilder pems = new StringBuilder();
    for (X509Certificate c : chain) pems.append(TestCertificates.pem(c));
    Files.writeString(dir.resolve("chain.pem"), pems);
    BlockingQueue<Integer> free = new ArrayBlockingQueue<>(slots);
    for (int i = 0; i < slots; i++) {
      Files.writeString(dir.resolve("serial" + i), String.format(Locale.ROOT, "%02X%n", i + 1));
      Files.writeString(
          dir.resolve("tsa" + i + ".cnf"),
          String.join(
              "\n",
              "[ tsa ]",
              "default_tsa = tsa_config",
              "[ tsa_config ]",
              "serial = " + dir.resolve("serial" + i),
              "crypto_device = builtin",
              "signer_cert = " + dir.resolve("tsa.pem"),
              "certs = " + dir.resolve("chain.pem"),
              "signer_key = " + dir.resolve("tsa.key"),
              "signer_digest = sha256",
              "default_policy = 1.2.3.4.1",
              "other_policies = 1.2.3.4.5",
              "digests = sha256, sha384, sha512",
              "accuracy = secs:1",
              "ordering = no",
              "tsa_name = yes",
              "ess_cert_id_chain = no",
              "ess_cert_id_alg = sha256",
              ""));
      free.add(i);
    }
    return request -> {
      int slot = free.take();
      try {
        Path query = dir.resolve("q" + slot + ".tsq");
        Path reply = dir.resolve("r" + slot + ".tsr");
        Files.write(query, request);
        run(
            dir,
            "openssl",
            "ts",
            "-reply",
            "-config",
            dir.resolve("tsa" + slot + ".cnf").toString(),
            "-queryfile",
            query.toString(),
            "-out",
            reply.toString());
        return Files.readAllBytes(reply);
      } finally {
        free.add(slot);
      }
    };
  }

  /**
   * {@code openssl ocsp} answering for {@code ca}'s certificates from an index: {@code good} valid,
   * {@code revoked} revoked (keyCompromise), signed by {@code signer} (the CA itself or a
   * delegate), nextUpdate a day on.
   */
  public static DerFront.Backend ocsp(
      Path dir,
      X509Certificate ca,
      X509Certificate signer,
      PrivateKey signerKey,
      List<X509Certificate> good,
      List<X509Certificate> revoked,
      int slots)
      throws Exception {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("ca.pem"), TestCertificates.pem(ca));
    Files.writeString(dir.resolve("signer.pem"), TestCertificates.pem(signer));
    Files.writeString(dir.resolve("signer.key"), TestCertificates.pem(signerKey));
    List<String> index = new ArrayList<>();
    for (X509Certificate c : good)
      index.add(
          String.join(
              "\t", "V", "301231000000Z", "", serial(c), "unknown", "/CN=good-" + serial(c)));
    for (X509Certificate c : revoked) {
      index.add(
          String.join(
              "\t",
              "R",
              "301231000000Z",
              "250101000000Z,keyCompromise",
              serial(c),
              "unknown",
              "/CN=revoked-" + serial(c)));
    }
    Files.writeString(dir.resolve("index.txt"), String.join("\n", index) + "\n");
    BlockingQueue<Integer> free = new ArrayBlockingQueue<>(slots);
    for (int i = 0; i < slots; i++) free.add(i);
    return request -> {
      int slot = free.take();
      try {
        Path in = dir.resolve("req" + slot + ".der");
        Path out = dir.resolve("resp" + slot + ".der");
        Files.write(in, request);
        run(
            dir,
            "openssl",
            "ocsp",
            "-index",
            dir.resolve("index.txt").toString(),
            "-CA",
            dir.resolve("ca.pem").toString(),
            "-rsigner",
            dir.resolve("signer.pem").toString(),
            "-rkey",
            dir.resolve("signer.key").toString(),
            "-ndays",
            "1",
            "-reqin",
            in.toString(),
            "-respout",
            out.toString());
        return Files.readAllBytes(out);
      } finally {
        free.add(slot);
      }
    };
  }

  /**
   * A TSA that answers another question than the one asked: {@code tsa} sees the request with its
   * nonce + 1 ({@code changeNonce}) or its imprint's first byte flipped, and the client gets that
   * token.
   */
  public static DerFront.Backend answeringAnotherRequest(
      DerFront.Backend tsa, boolean changeNonce) {
    return der -> {
      var request = new org.bouncycastle.tsp.TimeStampRequest(der);
      var generator = new org.bouncycastle.tsp.TimeStampRequestGenerator();
      generator.setCertReq(request.getCertReq());
      byte[] imprint = request.getMessageImprintDigest().clone();
      if (!changeNonce) imprint[0] ^= 1;
      var nonce =
          changeNonce ? request.getNonce().add(java.math.BigInteger.ONE) : request.getNonce();
      return tsa.answer(
          generator.generate(request.getMessageImprintAlgOID(), imprint, nonce).getEncoded());
    };
  }

  /** The serial as openssl's index holds it: upper-case hex, whole bytes. */
  static String serial(X509Certificate c) {
    String hex = c.getSerialNumber().toString(16).toUpperCase(Locale.ROOT);
    return hex.length() % 2 == 0 ? hex : "0" + hex;
  }

  private static void run(Path dir, String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0)
      throw new IllegalStateException(
          String.join(" ", command) + " exited " + p.exitValue() + ": " + output.strip());
  }
}
