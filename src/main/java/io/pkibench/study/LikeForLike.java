package io.pkibench.study;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Whether two TLS servers of {@code study ssl --server pkibench,nginx} were measured like for like:
 * what a checking run (before the measured steps, so they pay for no observation) saw of each, set
 * side by side. A pair that differs in anything but its name is reported with what differs and is
 * not compared.
 */
final class LikeForLike {
  private LikeForLike() {}

  /**
   * What the checking run saw of one server: the negotiated protocol version and suite, the
   * key-exchange groups it accepts (each offered alone), the SHA-256 of its certificate, how many
   * of the run's handshakes it did in full and how many it resumed (the second connection offers
   * the first one's session), and the bytes of its answer to {@code GET /bytes/128}.
   */
  record Facts(
      String server,
      String protocol,
      String suite,
      List<String> groups,
      String certificateSha256,
      int fullHandshakes,
      int resumedHandshakes,
      long responseBytes) {
    Facts {
      groups = List.copyOf(groups);
    }

    /** One line for the report's notes. */
    String describe() {
      return server
          + ": "
          + protocol
          + ", "
          + suite
          + ", groups "
          + String.join("/", groups)
          + ", certificate SHA-256 "
          + certificateSha256.substring(0, Math.min(16, certificateSha256.length()))
          + "…, "
          + fullHandshakes
          + " full and "
          + resumedHandshakes
          + " resumed handshakes of "
          + (fullHandshakes + resumedHandshakes)
          + ", "
          + responseBytes
          + " response bytes for 128 asked";
    }
  }

  private record Field(String name, Function<Facts, Object> value) {}

  private static final List<Field> FIELDS =
      List.of(
          new Field("protocol version", Facts::protocol),
          new Field("suite", Facts::suite),
          new Field("key-exchange groups", f -> String.join("/", f.groups())),
          new Field("certificate", Facts::certificateSha256),
          new Field("full handshakes", Facts::fullHandshakes),
          new Field("resumed handshakes", Facts::resumedHandshakes),
          new Field("response bytes", Facts::responseBytes));

  /**
   * Every way {@code other} differs from {@code reference}, each naming the field and both values;
   * empty when the pair is like for like.
   */
  static List<String> differences(Facts reference, Facts other) {
    List<String> differences = new ArrayList<>();
    for (Field field : FIELDS) {
      Object a = field.value().apply(reference);
      Object b = field.value().apply(other);
      if (!Objects.equals(a, b))
        differences.add(
            field.name()
                + " differs: "
                + reference.server()
                + " "
                + a
                + ", "
                + other.server()
                + " "
                + b);
    }
    return differences;
  }

  /**
   * The report's sentence for {@code other} set against {@code reference}: compared when like for
   * like, otherwise not compared, saying how the two differ.
   */
  static String verdict(Facts reference, Facts other) {
    List<String> differences = differences(reference, other);
    if (differences.isEmpty())
      return other.server()
          + " is like for like with "
          + reference.server()
          + " (protocol, suite, groups, certificate, handshakes, response bytes): compared";
    return other.server()
        + " is NOT like for like with "
        + reference.server()
        + ", so its cells are not compared with "
        + reference.server()
        + "'s: "
        + String.join("; ", differences);
  }
}
