package io.pkibench.server.keyserver;

import io.pkibench.pki.InputFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * Which client certificate may use which key aliases. One grant per line of the file:
 *
 * <pre>
 * # WHO: ALIAS-PATTERN, ALIAS-PATTERN...      (* matches any run of characters)
 * sha256=3F:A0:...:9C: signer-*, tls-client    # a certificate by its SHA-256 fingerprint
 * cn=pkibench tls-client: signer-rsa2048-*      # any certificate (chaining to the trusted root) with this subject CN
 * cn=pkibench tls-client worker *: signer-*     # a CN pattern: every per-worker certificate (--keys remote:...,identities=per-worker)
 * </pre>
 *
 * The TLS layer has already checked the chain; a grant only narrows what an authenticated client
 * may ask for.
 */
public record KeyGrants(List<Grant> grants) {
  public KeyGrants {
    grants = List.copyOf(grants);
  }

  /**
   * One line: a certificate matched by fingerprint or subject CN, and the alias patterns it may
   * use.
   */
  public record Grant(
      String fingerprintSha256, String commonName, List<Pattern> aliases, String line) {
    boolean matches(X509Certificate certificate) {
      if (fingerprintSha256 != null) return fingerprintSha256.equals(fingerprint(certificate));
      String cn = KeyGrants.commonName(certificate);
      // cn=pkibench tls-client worker *: every worker's own certificate (identities=per-worker), or
      // a user's numbered ones
      return commonName.contains("*")
          ? cn != null && glob(commonName).matcher(cn).matches()
          : commonName.equals(cn);
    }
  }

  /**
   * {@code client} may use every key: for tests whose client needs any key; 'serve keyserver'
   * grants {@link #signerKeysFor} instead.
   */
  public static KeyGrants everyKeyFor(X509Certificate client) {
    return new KeyGrants(
        List.of(
            new Grant(
                fingerprint(client),
                null,
                List.of(Pattern.compile(".*")),
                "sha256=" + fingerprint(client) + ": *")));
  }

  /**
   * What {@code serve keyserver} grants when no file is given: {@code client} (the test PKI's
   * tls-client) may use the signer keys and its own TLS key (the pix study's mutual handshakes sign
   * with it on the nodes), never the nodes' or servers' own TLS identities ({@code keyserver},
   * {@code tls-server*}).
   */
  public static KeyGrants signerKeysFor(X509Certificate client) {
    return new KeyGrants(
        List.of(
            new Grant(
                fingerprint(client),
                null,
                List.of(glob("signer-*"), glob("tls-client")),
                "sha256=" + fingerprint(client) + ": signer-*, tls-client"),
            // the certificates the test PKI issues each worker beside tls-client (--keys
            // remote:...,identities=per-worker): the same keys
            new Grant(
                null,
                WORKER_COMMON_NAMES,
                List.of(glob("signer-*"), glob("tls-client")),
                "cn=" + WORKER_COMMON_NAMES + ": signer-*, tls-client")));
  }

  /** The subject CN of every per-worker certificate the test PKI issues beside tls-client. */
  static final String WORKER_COMMON_NAMES = "pkibench tls-client worker *";

  /** Reads {@code file}; every malformed line is reported at once, each with its number. */
  public static KeyGrants read(Path file) throws IOException {
    List<String> lines = InputFiles.lines(file, 16L << 20, "a grants file");
    List<Grant> grants = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).replaceFirst("\\s+#.*$", "").strip();
      if (line.isEmpty() || line.startsWith("#")) continue;
      int colon = line.lastIndexOf(": ");
      if (colon < 0) {
        problems.add(
            file
                + ":"
                + (i + 1)
                + ": write WHO: ALIAS, ALIAS... (a colon and a space before the aliases)");
        continue;
      }
      String who = line.substring(0, colon).strip();
      List<Pattern> aliases = new ArrayList<>();
      for (String a : line.substring(colon + 2).split(",")) {
        if (!a.isBlank()) aliases.add(glob(a.strip()));
      }
      if (aliases.isEmpty()) problems.add(file + ":" + (i + 1) + ": no alias after the colon");
      if (who.toLowerCase(Locale.ROOT).startsWith("sha256=")) {
        String hex = who.substring(7).replace(":", "").toUpperCase(Locale.ROOT);
        if (!hex.matches("[0-9A-F]{64}")) {
          problems.add(
              file
                  + ":"
                  + (i + 1)
                  + ": sha256= takes the certificate's 64 hex digit fingerprint ('openssl x509 -noout -fingerprint -sha256')");
        } else {
          grants.add(new Grant(hex, null, aliases, line));
        }
      } else if (who.toLowerCase(Locale.ROOT).startsWith("cn=")) {
        grants.add(new Grant(null, who.substring(3), aliases, line));
      } else {
        problems.add(
            file
                + ":"
                + (i + 1)
                + ": name the client as sha256=FINGERPRINT or cn=COMMON NAME, not '"
                + who
                + "'");
      }
    }
    if (!problems.isEmpty()) throw new IOException(String.join("\n", problems));
    if (grants.isEmpty())
      throw new IOException(file + ": no grant; every client would be refused every key");
    return new KeyGrants(grants);
  }

  /** Whether {@code client} may use {@code alias}. */
  public boolean allows(X509Certificate client, String alias) {
    for (Grant g : grants) {
      if (g.matches(client) && g.aliases().stream().anyMatch(p -> p.matcher(alias).matches()))
        return true;
    }
    return false;
  }

  static Pattern glob(String pattern) {
    return Pattern.compile(
        Arrays.stream(pattern.split("\\*", -1))
            .map(Pattern::quote)
            .collect(Collectors.joining(".*")));
  }

  public static String fingerprint(X509Certificate certificate) {
    try {
      return HexFormat.of()
          .withUpperCase()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      throw new IllegalStateException("cannot fingerprint a certificate: " + e.getMessage(), e);
    }
  }

  static String commonName(X509Certificate certificate) {
    try {
      for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) return rdn.getValue().toString();
      }
    } catch (InvalidNameException e) {
      return null;
    }
    return null;
  }
}
