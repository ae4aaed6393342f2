package io.pkibench.formats.rsfn;

import io.pkibench.pki.InputFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.security.auth.x500.X500Principal;

/**
 * The one-byte code C10/C12 give a certificate's issuing CA. A code is found by the first rule
 * whose text the issuer's distinguished name contains (case-insensitive). The defaults name the CAs
 * as the published list does (01 Serpro, 02 Certisign, 04 Serasa, 05 Caixa, 06 Valid, 07 Soluti)
 * and give the test PKI's two intermediates codes of their own (0x51, 0x52), which no published CA
 * uses. A file of rules ({@code --ca-codes FILE}) comes before the defaults: one {@code CODE =
 * TEXT} a line, CODE as {@code 0x51} or {@code 81}, {@code #} starts a comment.
 */
public final class CaCodes {
  private static final Map<String, Integer> PUBLISHED = new LinkedHashMap<>();

  static {
    PUBLISHED.put("Serpro", 0x01);
    PUBLISHED.put("Certisign", 0x02);
    PUBLISHED.put("Serasa", 0x04);
    PUBLISHED.put("Caixa", 0x05);
    PUBLISHED.put("Valid", 0x06);
    PUBLISHED.put("Soluti", 0x07);
  }

  public static final int TEST_PKI_A = 0x51, TEST_PKI_B = 0x52;

  private record Rule(String text, int code) {}

  private final List<Rule> rules;

  private CaCodes(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  public static CaCodes defaults() {
    List<Rule> rules = new ArrayList<>();
    rules.add(new Rule("cn=pkibench intermediate-a,", TEST_PKI_A));
    rules.add(new Rule("cn=pkibench intermediate-b,", TEST_PKI_B));
    PUBLISHED.forEach((name, code) -> rules.add(new Rule(name.toLowerCase(Locale.ROOT), code)));
    return new CaCodes(rules);
  }

  /**
   * The rules of {@code file}, then the defaults; every bad line is reported at once, naming the
   * file and line.
   */
  public static CaCodes read(Path file) throws IOException {
    List<Rule> rules = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<String> lines = InputFiles.lines(file, 1L << 20, "a CA codes file");
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).replaceFirst("#.*", "").strip();
      if (line.isEmpty()) continue;
      int eq = line.indexOf('=');
      String where = file + " line " + (i + 1) + ": ";
      if (eq < 1 || eq == line.length() - 1) {
        problems.add(where + "write CODE = ISSUER TEXT, e.g. 0x51 = CN=My Issuing CA");
        continue;
      }
      String codeText = line.substring(0, eq).strip();
      Integer code = null;
      try {
        code =
            codeText.toLowerCase(Locale.ROOT).startsWith("0x")
                ? Integer.parseInt(codeText.substring(2), 16)
                : Integer.parseInt(codeText);
      } catch (NumberFormatException e) {
        code = null;
      }
      if (code == null || code < 1 || code > 0xFF) {
        problems.add(where + "the code " + codeText + " is not a byte from 0x01 to 0xFF");
        continue;
      }
      rules.add(new Rule(line.substring(eq + 1).strip().toLowerCase(Locale.ROOT), code));
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
    rules.addAll(defaults().rules);
    return new CaCodes(rules);
  }

  /** The code of {@code issuer}; throws naming the issuer and how to give it a code. */
  public int codeOf(X500Principal issuer) {
    String dn = issuer.getName(X500Principal.RFC2253).toLowerCase(Locale.ROOT) + ",";
    for (Rule r : rules) if (dn.contains(r.text)) return r.code;
    throw new IllegalArgumentException(
        "no RSFN CA code for the issuer "
            + issuer.getName(X500Principal.RFC2253)
            + "; give one in a --ca-codes file, a line like 0x51 = "
            + issuer.getName(X500Principal.RFC2253));
  }

  /** The published CA a code stands for, or null. */
  public static String publishedName(int code) {
    if (code == TEST_PKI_A) return "pkibench test PKI intermediate-a";
    if (code == TEST_PKI_B) return "pkibench test PKI intermediate-b";
    for (var e : PUBLISHED.entrySet()) if (e.getValue() == code) return e.getKey();
    return null;
  }
}
