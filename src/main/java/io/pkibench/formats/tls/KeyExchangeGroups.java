package io.pkibench.formats.tls;

import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.internal.tcnative.SSL;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLEngine;

/**
 * The TLS key-exchange groups a server accepts or a client offers ({@code serve tlsecho --groups},
 * {@code -p groups=}), in one place: their names, which engine has them, and the group a connection
 * negotiated, read from the engine's session.
 *
 * <p>The hybrid groups run on BoringSSL (netty-tcnative): it has X25519MLKEM768 and tells the group
 * each connection negotiated. The JDK 25's JSSE has no hybrid group (they come with JEP 527, JDK
 * 26), so groups are refused there; BouncyCastle's JSSE has them but would be a third engine to
 * carry.
 */
public final class KeyExchangeGroups {
  /** As BoringSSL and IANA name them; the classical ones also by their common aliases. */
  public static final List<String> NAMES =
      List.of("X25519MLKEM768", "x25519", "secp256r1", "secp384r1");

  private static final List<String> HYBRID = List.of("X25519MLKEM768");

  /**
   * Hybrids the BoringSSL here (netty-tcnative 2.0.84, BoringSSL 0226f304) lacks: setting either
   * fails with UNSUPPORTED_ELLIPTIC_CURVE, and the library holds no key share for them (Go 1.26's
   * crypto/tls has both).
   */
  private static final List<String> NOT_IN_THIS_BORINGSSL =
      List.of("SecP256r1MLKEM768", "SecP384r1MLKEM1024");

  private KeyExchangeGroups() {}

  /** Comma-separated names as given, trimmed; empty for none (the engine's defaults). */
  public static List<String> parse(String text) {
    List<String> groups = new ArrayList<>();
    for (String g : text.split(",")) if (!g.isBlank()) groups.add(g.trim());
    return List.copyOf(groups);
  }

  /** Every problem of asking {@code engine} for {@code groups}, each naming {@code flag}. */
  public static List<String> problems(String flag, TlsEngine engine, List<String> groups) {
    List<String> problems = new ArrayList<>();
    List<String> missing =
        groups.stream()
            .filter(g -> NOT_IN_THIS_BORINGSSL.stream().anyMatch(n -> n.equalsIgnoreCase(g)))
            .toList();
    if (!missing.isEmpty()) {
      problems.add(
          flag
              + ": "
              + String.join(", ", missing)
              + " is not in the BoringSSL of netty-tcnative 2.0.84 (it refuses the group:"
              + " UNSUPPORTED_ELLIPTIC_CURVE); use X25519MLKEM768, the hybrid it has");
    }
    List<String> unknown =
        groups.stream()
            .filter(g -> NAMES.stream().noneMatch(n -> n.equalsIgnoreCase(g)))
            .filter(g -> !missing.contains(g))
            .toList();
    if (!unknown.isEmpty())
      problems.add(
          flag
              + ": unknown group "
              + String.join(", ", unknown)
              + "; use "
              + String.join(", ", NAMES));
    if (!groups.isEmpty() && engine == TlsEngine.JSSE) {
      problems.add(
          flag
              + ": choosing groups needs the openssl engine (BoringSSL, which has X25519MLKEM768 and reports the group"
              + " negotiated); the JDK 25's JSSE has no hybrid group; add --tls openssl (or -p engine=openssl)");
    }
    return problems;
  }

  /** BoringSSL's spelling of a group. */
  static String boringSslName(String group) {
    return switch (group.toLowerCase(Locale.ROOT)) {
      case "x25519mlkem768" -> "X25519MLKEM768";
      case "x25519" -> "X25519";
      case "secp256r1" -> "P-256";
      case "secp384r1" -> "P-384";
      default -> group;
    };
  }

  /** Our name of a group as BoringSSL reports it. */
  static String ourName(String boringSsl) {
    return switch (boringSsl) {
      case "X25519" -> "x25519";
      case "P-256" -> "secp256r1";
      case "P-384" -> "secp384r1";
      default -> boringSsl;
    };
  }

  /** Restricts {@code builder} to {@code groups}, in order of preference; nothing for none. */
  static SslContextBuilder apply(SslContextBuilder builder, TlsEngine engine, List<String> groups) {
    if (groups.isEmpty()) return builder;
    if (engine != TlsEngine.OPENSSL)
      throw new IllegalArgumentException(problems("groups", engine, groups).get(0));
    return builder.option(
        OpenSslContextOption.GROUPS,
        groups.stream().map(KeyExchangeGroups::boringSslName).toArray(String[]::new));
  }

  /**
   * The group {@code engine}'s finished handshake used, as BoringSSL reports it; null on an engine
   * that cannot tell (JSSE).
   */
  public static String negotiated(SSLEngine engine) {
    if (!(engine instanceof ReferenceCountedOpenSslEngine boring)) return null;
    try {
      synchronized (boring) {
        String name = SSL.getGroupName(boring.sslPointer());
        return name == null ? null : ourName(name);
      }
    } catch (Exception e) {
      return null;
    }
  }

  public static boolean isHybrid(String group) {
    return HYBRID.stream().anyMatch(h -> h.equalsIgnoreCase(group));
  }
}
