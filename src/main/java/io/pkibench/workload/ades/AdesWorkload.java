package io.pkibench.workload.ades;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.DSSDocument;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.formats.ades.TimeStampResponder;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.SigningKey;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.time.InstantSource;
import java.util.List;

/**
 * One AdES signature per operation, made in two phases through {@link TwoPhaseSigner} with the key
 * source's provider signing in between; signers are used in turn. With {@code --verify}, an
 * independent implementation checks each result ({@code checker}).
 */
final class AdesWorkload implements Workload {
  /** Checks a signed document independently of DSS; throws when it does not verify. */
  @FunctionalInterface
  interface Checker {
    void check(byte[] signed, byte[] original, SigningKey key) throws Exception;
  }

  private final TwoPhaseSigner.Format format;
  private final List<SigningKey> signers;
  private final byte[] document;
  private final String documentName;
  private final SignaturePackaging packaging;
  private final TimeStampResponder tsa;
  private final TimeStampCheck tsaCheck;
  private final Checker checker;
  private final InstantSource clock;

  AdesWorkload(
      TwoPhaseSigner.Format format,
      List<SigningKey> signers,
      byte[] document,
      String documentName,
      SignaturePackaging packaging,
      TimeStampResponder tsa,
      TimeStampCheck tsaCheck,
      Checker checker,
      InstantSource clock) {
    this.format = format;
    this.signers = List.copyOf(signers);
    this.document = document;
    this.documentName = documentName;
    this.packaging = packaging;
    this.tsa = tsa;
    this.tsaCheck = tsaCheck;
    this.checker = checker;
    this.clock = clock;
  }

  @Override
  public Operation newOperation(int worker) {
    // DSS services keep per-use state: one signer per worker.
    TwoPhaseSigner signer =
        tsa == null ? new TwoPhaseSigner(null, clock) : new TwoPhaseSigner(tsa, tsaCheck, clock);
    DSSDocument doc = new InMemoryDocument(document, documentName);
    int[] turn = {worker};
    return () -> {
      SigningKey key = signers.get(turn[0]++ % signers.size());
      byte[] signed = signer.sign(format, doc, key, packaging);
      if (checker != null) checker.check(signed, document, key);
    };
  }

  @Override
  public void close() throws Exception {
    if (tsa instanceof AutoCloseable outside) outside.close(); // an outside TSA's HTTP client
  }
}
