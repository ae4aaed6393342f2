package io.pkibench.formats.ades;

import java.security.SignatureException;
import java.util.ArrayList;
import java.util.List;

/**
 * Poppler's {@code pdfsig} report on a PDF, read as an independent PAdES check. "Signature is
 * Valid." alone says only that the byte range verifies: pdfsig also says whether that range is the
 * whole file ("Total document signed", or "Not total document signed" when an update follows the
 * signature) and whose certificate signed. All three must hold, for the PDF's only signature.
 */
public final class PdfsigVerdict {
  static final String VALID = "- Signature Validation: Signature is Valid.";
  static final String WHOLE_DOCUMENT = "- Total document signed";
  static final String SIGNER = "- Signer Certificate Common Name: ";

  private PdfsigVerdict() {}

  /**
   * Throws naming every line that is missing or wrong in {@code report} (pdfsig's standard output)
   * for one signature, valid, over the whole file, by {@code signerCommonName}.
   */
  public static void check(String report, String signerCommonName) throws SignatureException {
    List<String> lines = report.lines().map(String::strip).toList();
    long signatures = lines.stream().filter(l -> l.matches("Signature #\\d+:")).count();
    List<String> problems = new ArrayList<>();
    if (signatures != 1) problems.add("expected one signature, pdfsig lists " + signatures);
    if (!lines.contains(VALID)) problems.add("no '" + VALID + "' line");
    if (!lines.contains(WHOLE_DOCUMENT))
      problems.add(
          "no '"
              + WHOLE_DOCUMENT
              + "' line: the signature's byte range is not the whole file"
              + (lines.contains("- Not total document signed")
                  ? " (pdfsig: 'Not total document signed')"
                  : ""));
    String signer = lines.stream().filter(l -> l.startsWith(SIGNER)).findFirst().orElse(null);
    if (signer == null) problems.add("no '" + SIGNER + "' line");
    else if (!signer.substring(SIGNER.length()).equals(signerCommonName))
      problems.add(
          "signed by '"
              + signer.substring(SIGNER.length())
              + "', expected '"
              + signerCommonName
              + "'");
    if (!problems.isEmpty())
      throw new SignatureException(
          "pdfsig does not vouch for the PDF: " + String.join("; ", problems));
  }
}
