package io.pkibench.text;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.InterruptedByTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Why an operation failed, as a person reads it: an exception chain turned into a sentence
 * ("connection refused (ConnectException)") instead of its class names ("java.net.ConnectException
 * <- java.nio.channels.ClosedChannelException", which is what the JDK's HTTP client says when
 * nothing listens). The common causes of a service that cannot be used are named as a {@link Kind},
 * so that a caller can say what to do about each; the class names stay in parentheses, so the text
 * can still be searched for.
 */
public record FailureCause(Kind kind, String sentence) {
  /** What went wrong, as far as the chain tells. */
  public enum Kind {
    REFUSED,
    UNKNOWN_HOST,
    TIMED_OUT,
    TLS_UNTRUSTED,
    TLS,
    RESET,
    CLOSED,
    OTHER
  }

  // Compiled once: this runs for every failed operation the engine counts, at whatever rate a
  // broken service fails.
  private static final Pattern CLASS_NAME =
      Pattern.compile("([a-z_$][\\w$]*\\.)+[A-Z][\\w$]*(Exception|Error)");
  private static final Pattern TRAILING_PUNCTUATION = Pattern.compile("([:;,]\\s*)+$");

  /**
   * Deeper chains than this are cut: a cause that names itself, or a wrapper loop, must not hang
   * the failure path.
   */
  private static final int MOST_LINKS = 16;

  /** The sentence for {@code failure} with its kind. */
  public static FailureCause of(Throwable failure) {
    List<Throwable> chain = chain(failure);
    List<Kind> kinds = chain.stream().map(t -> kindOf(t, chain)).toList();
    Kind kind = PRIORITY.stream().filter(kinds::contains).findFirst().orElse(Kind.OTHER);
    Throwable outer = chain.get(0);
    if (kind != Kind.OTHER && kind != Kind.TLS) {
      // A known cause: its words, after what the outermost exception adds of its own (a workload's
      // "calling URL failed").
      Throwable named = chain.get(kinds.indexOf(kind));
      String own = message(outer);
      String below = message(named);
      if (own != null) {
        // What is left of the outer message once the cause's words, the JDK's class names and its
        // "PKIX path building failed" are gone.
        if (below != null) own = own.replace(below, "");
        own = CLASS_NAME.matcher(own).replaceAll("").replace("PKIX path building failed", "");
        own = TRAILING_PUNCTUATION.matcher(own).replaceAll("").strip();
      }
      if (outer == named || own != null && own.isEmpty()) own = null;
      if (own == null && kind == Kind.TLS_UNTRUSTED) own = "TLS handshake failed";
      List<Throwable> naming = new ArrayList<>(List.of(outer));
      // The TLS exceptions between stay named: "SSLHandshakeException" is what people search for.
      for (Throwable link : chain.subList(0, chain.indexOf(named)))
        if (link instanceof SSLException) naming.add(link);
      naming.add(named);
      return new FailureCause(
          kind,
          (own == null ? "" : own + ": ") + phrase(kind, named) + " (" + classes(naming) + ")");
    }
    List<String> parts = new ArrayList<>();
    List<Throwable> speakers = new ArrayList<>();
    for (Throwable link : chain) {
      String words = message(link);
      if (words == null) continue;
      int same = parts.indexOf(words);
      // The deepest link that says the words is named: a wrapper copying its cause's message is not
      // where it came from.
      if (same >= 0) speakers.set(same, link);
      if (said(parts, words)) continue;
      parts.add(words);
      speakers.add(link);
    }
    List<Throwable> speaking = new ArrayList<>(List.of(outer));
    speaking.addAll(speakers);
    // Nothing but class names (a bare ClosedChannelException): say that much, the innermost last,
    // as the chain ran.
    if (parts.isEmpty())
      return new FailureCause(
          kind,
          (kinds.contains(Kind.CLOSED) ? "the connection was closed" : "failed without a message")
              + " ("
              + classes(chain)
              + ")");
    return new FailureCause(kind, String.join(": ", parts) + " (" + classes(speaking) + ")");
  }

  /**
   * Which kind names a chain that holds several: a refused connect wraps the closed channel, an
   * unknown host the refused connect.
   */
  private static final List<Kind> PRIORITY =
      List.of(
          Kind.TLS_UNTRUSTED,
          Kind.UNKNOWN_HOST,
          Kind.TIMED_OUT,
          Kind.REFUSED,
          Kind.RESET,
          Kind.TLS,
          Kind.CLOSED);

  private static String classes(List<Throwable> links) {
    List<String> names = new ArrayList<>();
    for (Throwable t : links) {
      String name =
          t.getClass().getSimpleName().isEmpty()
              ? t.getClass().getName()
              : t.getClass().getSimpleName();
      if (!names.contains(name)) names.add(name);
    }
    return String.join(" <- ", names);
  }

  /** {@link #of(Throwable)}'s sentence alone. */
  public static String sentenceOf(Throwable failure) {
    return of(failure).sentence();
  }

  private static List<Throwable> chain(Throwable failure) {
    List<Throwable> chain = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure;
        t != null && chain.size() < MOST_LINKS && seen.put(t, true) == null;
        t = t.getCause()) chain.add(t);
    return chain;
  }

  private static Kind kindOf(Throwable link, List<Throwable> chain) {
    String name = link.getClass().getName();
    String text = link.getMessage() == null ? "" : link.getMessage().toLowerCase(Locale.ROOT);
    if (link instanceof UnknownHostException || link instanceof UnresolvedAddressException)
      return Kind.UNKNOWN_HOST;
    if (link instanceof ConnectException) {
      if (text.contains("timed out")) return Kind.TIMED_OUT;
      // The JDK's HTTP client throws a ConnectException with no message (a ClosedChannelException
      // below it) when refused.
      if (text.isEmpty() || text.contains("refused")) return Kind.REFUSED;
      return Kind.OTHER;
    }
    if (link instanceof SocketTimeoutException
        || link instanceof HttpTimeoutException
        || link instanceof TimeoutException
        || link instanceof InterruptedByTimeoutException) return Kind.TIMED_OUT;
    if (link instanceof CertPathBuilderException
        || link instanceof CertPathValidatorException
        || name.equals("sun.security.validator.ValidatorException")) {
      return chain.stream().anyMatch(t -> t instanceof SSLException)
          ? Kind.TLS_UNTRUSTED
          : Kind.OTHER;
    }
    if (link instanceof SSLException) return Kind.TLS;
    if (link instanceof SocketException && text.contains("connection reset")) return Kind.RESET;
    if (link instanceof ClosedChannelException || link instanceof EOFException && text.isEmpty())
      return Kind.CLOSED;
    return Kind.OTHER;
  }

  /**
   * Words for a kind the JDK words poorly or not at all; null where the exception's own message
   * says it.
   */
  private static String phrase(Kind kind, Throwable link) {
    String text = message(link);
    return switch (kind) {
      case REFUSED -> "connection refused";
      case UNKNOWN_HOST ->
          text == null
              ? "unknown host"
              : text.toLowerCase(Locale.ROOT).contains("unknown host")
                  ? text
                  : "unknown host " + text;
      case TIMED_OUT ->
          text == null
              ? "timed out"
              : text.toLowerCase(Locale.ROOT).contains("timed out") ? text : "timed out: " + text;
      case TLS_UNTRUSTED -> "the server's certificate is not trusted";
      case TLS -> "TLS failed";
      case RESET -> "connection reset by the peer";
      case CLOSED -> "the connection was closed";
      case OTHER -> text;
    };
  }

  /**
   * The exception's message without the "java.x.SomeException: " a wrapper copies from its cause's
   * toString.
   */
  private static String message(Throwable link) {
    String text = link.getMessage();
    if (text == null) return null;
    text = text.replace('\n', ' ').strip();
    while (CLASS_NAME.matcher(text).lookingAt()) {
      int colon = text.indexOf(':');
      text = colon < 0 ? "" : text.substring(colon + 1).strip();
    }
    return text.isEmpty() ? null : text;
  }

  /**
   * True when {@code words} adds nothing to what {@code parts} already say (a wrapper repeating its
   * cause, or the other way round).
   */
  private static boolean said(List<String> parts, String words) {
    String lower = words.toLowerCase(Locale.ROOT);
    return parts.stream().anyMatch(p -> p.toLowerCase(Locale.ROOT).contains(lower));
  }
}
