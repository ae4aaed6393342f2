package io.pkibench.study;

import io.pkibench.files.OutputFiles;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.TestPki;
import io.pkibench.workload.spi.SpiWorkloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The pix study's samples ({@code --save-samples}): an SPI signature and the signer's chain. */
final class PixSamples {
  private PixSamples() {}

  /** Where the SPI step keeps its answer, under the samples directory. */
  static final String SPI_TOKEN = "spi-sign";

  /**
   * {@code spi-sign.xml}, the first SPI signature of the measured run whose check passed (its
   * signature value the key servers' answer), with {@code spi-message.xml}, the message it signed;
   * the signer's certificate and chain, and {@code check-spi.sh}: xmlsec1 for the KeyInfo and
   * header references, Python's C14N for the Document's digest, openssl for the signature value. No
   * SPI signature passed (or the step did not run): no {@code spi-sign.xml}, never one made here.
   */
  static List<Sample> samples(Path dir, TestPki pki, KeySource keys) throws Exception {
    Files.createDirectories(dir);
    SigningKey key = keys.key(SpiWorkloads.SIGNER);
    List<Sample> samples = new ArrayList<>();
    if (StudySamples.take(dir, SPI_TOKEN, "spi-sign.xml", "spi-message.xml"))
      samples.add(
          new Sample(
              "spi-sign.xml",
              "the first pacs.008 of the measured run signed as the SPI signs (AppHdr/Sgntr, three"
                  + " references; the signature value the key servers' answer) whose check passed, by"
                  + " signer.pem; spi-message.xml is the message as sent",
              "bash check-spi.sh spi-sign.xml signer.pem",
              List.of("xmlsec1", "python3", "openssl")));
    StudySamples.deleteTree(dir.resolve(".answers"));
    OutputFiles.replace(dir.resolve("signer.pem"), TestPki.pem(List.of(key.certificate())));
    OutputFiles.replace(dir.resolve("chain.pem"), TestPki.pem(key.chain()));
    OutputFiles.replace(
        dir.resolve("root-ca.pem"), Files.readString(pki.certificatePem("root-ca")));
    try (var script = PixStudy.class.getResourceAsStream("check-spi.sh")) {
      Path target = dir.resolve("check-spi.sh");
      OutputFiles.replaceScript(target, script.readAllBytes());
    }
    samples.add(
        new Sample(
            "chain.pem",
            "the signer's chain (signer, intermediate, root), to the test PKI's root",
            "openssl verify -CAfile root-ca.pem -untrusted chain.pem signer.pem",
            List.of("openssl")));
    return samples;
  }
}
