package io.pkibench.study;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.workload.ades.AdesChecks;
import io.pkibench.workload.ades.TimeStampAuthority;
import io.pkibench.workload.ades.TwoPhaseSigner;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.tsp.TimeStampRequestGenerator;

/**
 * One artifact per transaction type ({@code --save-samples DIR}), made by the same two-phase code the
 * service runs, plus the CA chain, so that anyone can check them with their own tools.
 */
public final class StudySamples {
  private StudySamples() {}

  public static List<Path> write(Path dir, TestPki pki, KeySource keys, InstantSource clock) throws Exception {
    Files.createDirectories(dir);
    TimeStampAuthority tsa = new TimeStampAuthority(keys.key("tsa"), clock);
    TwoPhaseSigner signer = new TwoPhaseSigner(tsa);
    var key = keys.key("signer-rsa2048-1");
    List<Path> written = new ArrayList<>();
    byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 137 * 1024);
    written.add(Files.write(dir.resolve("document.bin"), content));
    written.add(Files.write(dir.resolve("cades.p7s"),
        signer.sign(TwoPhaseSigner.Format.CADES, new InMemoryDocument(content, "document.bin"), key, SignaturePackaging.DETACHED)));
    written.add(Files.write(dir.resolve("cades-t.p7s"),
        signer.sign(TwoPhaseSigner.Format.CADES_T, new InMemoryDocument(content, "document.bin"), key, SignaturePackaging.DETACHED)));
    byte[] pdf = AdesChecks.sampleDocument(TwoPhaseSigner.Format.PADES, 0);
    written.add(Files.write(dir.resolve("pades.pdf"), signer.sign(TwoPhaseSigner.Format.PADES, new InMemoryDocument(pdf, "sample.pdf"), key, null)));
    written.add(Files.write(dir.resolve("pades-t.pdf"), signer.sign(TwoPhaseSigner.Format.PADES_T, new InMemoryDocument(pdf, "sample.pdf"), key, null)));
    byte[] xml = AdesChecks.sampleDocument(TwoPhaseSigner.Format.XADES, 4096);
    written.add(Files.write(dir.resolve("xades.xml"), signer.sign(TwoPhaseSigner.Format.XADES, new InMemoryDocument(xml, "message.xml"), key, null)));
    TimeStampRequestGenerator requests = new TimeStampRequestGenerator();
    requests.setCertReq(true);
    byte[] request = requests.generate(NISTObjectIdentifiers.id_sha256, MessageDigest.getInstance("SHA-256").digest(content), BigInteger.ONE).getEncoded();
    written.add(Files.write(dir.resolve("timestamp.tsq"), request));
    written.add(Files.write(dir.resolve("timestamp.tsr"), tsa.respond(request)));
    written.add(Files.writeString(dir.resolve("chain.pem"), Files.readString(pki.caChainPem())));
    return written;
  }
}
