package io.pkibench.formats.pec;

import io.pkibench.pki.InputFiles;
import io.pkibench.pki.TestPki;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The providers a PEC provider trusts, by mail domain, each with the certificate it signs with (the
 * role of the public index of PEC providers in the rules). As a file: PEM certificates, each
 * preceded by a line {@code provider: DOMAIN}; text outside the PEM blocks is allowed by RFC 7468,
 * so openssl reads the file as a bundle too.
 */
public final class ProviderIndex {
  private final Map<String, X509Certificate> byDomain;

  /**
   * The path, validity and revocation check of a provider's certificate, or null: the index alone
   * decides.
   */
  private final CertificatePathCheck pathCheck;

  public ProviderIndex(Map<String, X509Certificate> byDomain) {
    this(byDomain, null);
  }

  private ProviderIndex(Map<String, X509Certificate> byDomain, CertificatePathCheck pathCheck) {
    Map<String, X509Certificate> copy = new LinkedHashMap<>();
    byDomain.forEach((domain, cert) -> copy.put(domain.toLowerCase(Locale.ROOT), cert));
    this.byDomain = Map.copyOf(copy);
    this.pathCheck = pathCheck;
  }

  /**
   * This index, each document's signer also checked by {@code check} (path, validity, revocation)
   * as the rules ask.
   */
  public ProviderIndex withPathCheck(CertificatePathCheck check) {
    return new ProviderIndex(byDomain, check);
  }

  public Optional<CertificatePathCheck> pathCheck() {
    return Optional.ofNullable(pathCheck);
  }

  /** The domains, in no particular order. */
  public List<String> domains() {
    return List.copyOf(byDomain.keySet());
  }

  public boolean knows(String domain) {
    return byDomain.containsKey(domain.toLowerCase(Locale.ROOT));
  }

  public Optional<X509Certificate> certificate(String domain) {
    return Optional.ofNullable(byDomain.get(domain.toLowerCase(Locale.ROOT)));
  }

  /**
   * The domain whose provider signs with exactly {@code cert}, if any: the index decides trust, not
   * a chain.
   */
  public Optional<String> domainOf(X509Certificate cert) {
    return byDomain.entrySet().stream()
        .filter(e -> e.getValue().equals(cert))
        .map(Map.Entry::getKey)
        .findFirst();
  }

  public String toText() {
    StringBuilder s =
        new StringBuilder(
            "# PEC provider index (pkibench): each provider's mail domain, then the certificate it signs with\n");
    byDomain.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              s.append("provider: ").append(e.getKey()).append('\n');
              try {
                s.append(TestPki.pem(List.of(e.getValue())));
              } catch (IOException x) {
                throw new UncheckedIOException(x);
              }
            });
    return s.toString();
  }

  public void write(Path file) throws IOException {
    Files.writeString(file, toText());
  }

  /**
   * Reads an index file; every problem (a certificate without its provider line, a line that is
   * neither) is reported at once, by line.
   */
  public static ProviderIndex read(Path file) throws IOException {
    if (!Files.isRegularFile(file))
      throw new IOException(
          "--index " + file + ": no such file; make one with 'pkibench pec index'");
    List<String> lines = InputFiles.lines(file, 16L << 20, "a provider index");
    List<String> problems = new ArrayList<>();
    Map<String, X509Certificate> index = new LinkedHashMap<>();
    String domain = null;
    StringBuilder pem = null;
    int domainLine = 0;
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException(e);
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      int n = i + 1;
      if (pem != null) {
        pem.append(line).append('\n');
        if (line.startsWith("-----END CERTIFICATE-----")) {
          try {
            X509Certificate cert =
                (X509Certificate)
                    factory.generateCertificate(
                        new ByteArrayInputStream(
                            pem.toString().getBytes(StandardCharsets.US_ASCII)));
            if (domain == null)
              problems.add(
                  file
                      + " line "
                      + n
                      + ": a certificate with no 'provider: DOMAIN' line before it");
            else if (index.put(domain, cert) != null)
              problems.add(
                  file + " line " + domainLine + ": provider " + domain + " is listed twice");
          } catch (CertificateException e) {
            problems.add(file + " line " + n + ": not a certificate (" + e.getMessage() + ")");
          }
          pem = null;
          domain = null;
        }
      } else if (line.startsWith("-----BEGIN CERTIFICATE-----")) {
        pem = new StringBuilder(line).append('\n');
      } else if (line.toLowerCase(Locale.ROOT).startsWith("provider:")) {
        if (domain != null)
          problems.add(
              file + " line " + domainLine + ": provider " + domain + " has no certificate");
        domain = line.substring("provider:".length()).strip().toLowerCase(Locale.ROOT);
        domainLine = n;
        if (domain.isEmpty() || domain.contains("@") || domain.contains(" ")) {
          problems.add(
              file
                  + " line "
                  + n
                  + ": '"
                  + line
                  + "' names no domain; write 'provider: pec1.example'");
          domain = null;
        }
      } else if (!line.isEmpty() && !line.startsWith("#")) {
        problems.add(
            file
                + " line "
                + n
                + ": expected 'provider: DOMAIN', a PEM certificate or a # comment");
      }
    }
    if (pem != null) problems.add(file + ": the last certificate has no END line");
    if (domain != null)
      problems.add(file + " line " + domainLine + ": provider " + domain + " has no certificate");
    if (index.isEmpty() && problems.isEmpty()) problems.add(file + ": lists no provider");
    if (!problems.isEmpty()) throw new IOException(String.join("\n", problems));
    return new ProviderIndex(index);
  }
}
