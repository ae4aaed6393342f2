package io.pkibench.study;

import static io.pkibench.study.PecStudy.P1;
import static io.pkibench.study.PecStudy.P2;

import io.pkibench.files.OutputFiles;
import io.pkibench.formats.pec.DocumentKind;
import io.pkibench.formats.pec.Outgoing;
import io.pkibench.formats.pec.PecMessages;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.TestProviders;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The PEC study's samples: one of each signed document, for an independent tool to verify. */
final class PecSamples {
  private PecSamples() {}

  /** At most this many of the run's mail files are read looking for each kind of document. */
  static final int FILES_READ = 20_000;

  /** A message's header block is read up to this many bytes: a provider's headers are short. */
  static final int HEADER_BYTES = 16 * 1024;

  /**
   * One of each document a provider signs, as {@code .eml}: as the run's providers delivered it,
   * found in {@code mailboxes}, where the run made one; else (a kind only a fault makes, or no run)
   * made by the providers' code in this process, and said to be. The CA chain as {@code chain.pem};
   * each checked by {@code openssl smime -verify}.
   */
  static List<Sample> samples(
      Path dir, TestPki pki, KeySource keys, InstantSource clock, Path mailboxes) throws Exception {
    Map<String, Path> delivered = delivered(mailboxes);
    Map<String, byte[]> documents = madeHere(pki, keys, clock);
    Files.createDirectories(dir);
    OutputFiles.replace(dir.resolve("chain.pem"), Files.readString(pki.caChainPem()));
    List<Sample> samples = new ArrayList<>();
    for (var e : documents.entrySet()) {
      String file = e.getKey() + ".eml";
      Path found = delivered.get(e.getKey());
      OutputFiles.replace(
          dir.resolve(file), found != null ? Files.readAllBytes(found) : e.getValue());
      samples.add(
          new Sample(
              file,
              describe(e.getKey())
                  + (found != null
                      ? "; as the run's providers delivered it ("
                          + mailboxes.relativize(found)
                          + ")"
                      : "; the run's mailboxes hold none, so made by the providers' code in this process"),
              "openssl smime -verify -in "
                  + file
                  + " -CAfile chain.pem -purpose any -out /dev/null",
              List.of("openssl")));
    }
    return samples;
  }

  /**
   * For each kind of document, the first file under {@code mailboxes} (in path order) whose headers
   * declare it; empty where there are no mailboxes.
   */
  static Map<String, Path> delivered(Path mailboxes) throws IOException {
    Map<String, Path> found = new LinkedHashMap<>();
    if (mailboxes == null || !Files.isDirectory(mailboxes)) return found;
    List<Path> files;
    try (var walk = Files.walk(mailboxes)) {
      files = walk.filter(Files::isRegularFile).sorted().limit(FILES_READ).toList();
    }
    for (Path file : files) {
      if (found.size() == DocumentKind.values().length) break;
      kindOf(file).ifPresent(k -> found.putIfAbsent(k.value, file));
    }
    return found;
  }

  /** The kind a mail file's headers declare (X-Ricevuta, X-Trasporto), read from its start. */
  static java.util.Optional<DocumentKind> kindOf(Path file) throws IOException {
    byte[] head;
    try (var in = Files.newInputStream(file)) {
      head = in.readNBytes(HEADER_BYTES);
    }
    String text = new String(head, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) end = text.indexOf("\n\n");
    if (end >= 0) text = text.substring(0, end);
    String ricevuta = null, trasporto = null;
    for (String line : text.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon < 0 || line.startsWith(" ") || line.startsWith("\t")) continue;
      String name = line.substring(0, colon).strip();
      if (name.equalsIgnoreCase("X-Ricevuta")) ricevuta = line.substring(colon + 1);
      else if (name.equalsIgnoreCase("X-Trasporto")) trasporto = line.substring(colon + 1);
    }
    return DocumentKind.of(ricevuta, trasporto);
  }

  /**
   * One of each document, made by the providers' code in this process: the receipts of a message
   * accepted and delivered, of one without a Message-ID, of a tampered envelope, and a non-delivery
   * notice; by kind, in that order.
   */
  private static Map<String, byte[]> madeHere(TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    SigningKey k1 = keys.key(TestProviders.SENDER_KEY);
    SigningKey k2 = keys.key(TestProviders.RECIPIENT_KEY);
    ProviderIndex index = new ProviderIndex(Map.of(P1, k1.certificate(), P2, k2.certificate()));
    PecProvider p1 =
        new PecProvider(P1, "pkibench provider " + P1, k1, index, clock, TestProviders.ZONE);
    PecProvider p2 =
        new PecProvider(P2, "pkibench provider " + P2, k2, index, clock, TestProviders.ZONE);
    String from = "user1@" + P1;
    String to = "user1@" + P2;
    byte[] message =
        PecMessages.message(from, to, "<sample.1@" + P1 + ">", "pkibench sample", 60 * 1024, 1);
    Map<String, byte[]> documents = new LinkedHashMap<>();
    List<Outgoing> accepted = p1.accept("sample", from, List.of(to), message);
    byte[] envelope = null;
    for (Outgoing o : accepted) {
      documents.put(o.kind().value, o.bytes());
      if (o.kind() == DocumentKind.TRANSPORT) envelope = o.bytes();
    }
    for (Outgoing o : p2.receive("sample", p1.address(), List.of(to), envelope))
      if (o.kind() != null) documents.put(o.kind().value, o.bytes());
    String noId =
        new String(
                PecMessages.message(
                    from, to, "<x@" + P1 + ">", "pkibench sample without Message-ID", 2048, 2),
                StandardCharsets.US_ASCII)
            .replaceFirst("Message-ID: [^\r]*\r\n", "");
    for (Outgoing o :
        p1.accept("sample-2", from, List.of(to), noId.getBytes(StandardCharsets.US_ASCII)))
      documents.put(o.kind().value, o.bytes());
    byte[] tampered = envelope.clone();
    int at =
        new String(tampered, StandardCharsets.ISO_8859_1).indexOf("Messaggio di posta certificata");
    tampered[at] =
        'm'; // one byte of the signed text: the recipients' provider must answer with an anomaly
    for (Outgoing o : p2.receive("sample-3", p1.address(), List.of(to), tampered))
      if (o.kind() != null) documents.put(o.kind().value, o.bytes());
    documents.put(
        DocumentKind.NON_DELIVERY.value,
        p1.nonDelivery("sample", envelope, List.of(to), "sample: 550 5.1.1 no such user", true)
            .bytes());
    return documents;
  }

  private static String describe(String kind) {
    return switch (kind) {
      case "accettazione" -> "acceptance receipt (X-Ricevuta: accettazione), signed by pec1.test";
      case "posta-certificata" ->
          "transport envelope (X-Trasporto: posta-certificata) with postacert.eml and daticert.xml, signed by pec1.test";
      case "presa-in-carico" ->
          "taking-charge receipt (X-Ricevuta: presa-in-carico), signed by pec2.test";
      case "avvenuta-consegna" ->
          "complete delivery receipt (X-Ricevuta: avvenuta-consegna) carrying the original, signed by pec2.test";
      case "non-accettazione" ->
          "non-acceptance (X-Ricevuta: non-accettazione) of a message without Message-ID, signed by pec1.test";
      case "errore" ->
          "anomaly envelope (X-Trasporto: errore, X-VerificaSicurezza: errore) for a tampered envelope, signed by pec2.test";
      case "errore-consegna" ->
          "non-delivery notice (X-Ricevuta: errore-consegna) for an envelope the peer refused, signed by pec1.test";
      default -> kind;
    };
  }
}
