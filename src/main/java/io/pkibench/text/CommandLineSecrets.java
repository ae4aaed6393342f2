package io.pkibench.text;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command line as pkibench keeps it (a result's environment, the interval log's header, the HTML
 * report), without the secrets a URL in it may carry: a URL's user info ({@code
 * https://user:password@host/}) and the values of its query and fragment parameters whose names say
 * they are secret ({@code ?api_key=}, {@code token=}, {@code X-Amz-Signature=}, {@code sig=}) are
 * written {@value #HIDDEN}. The rest stays, so the line still says what was run and against what.
 */
public final class CommandLineSecrets {
  public static final String HIDDEN = "***";

  /** A URL of any scheme, to the next white space (the line is the arguments joined by spaces). */
  private static final Pattern URL = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://\\S*");

  /**
   * A parameter whose name holds one of these, in any case, is a secret; "sig" alone is one too
   * (Azure's SAS).
   */
  private static final List<String> SECRET_WORDS =
      List.of(
          "key", "token", "secret", "password", "passwd", "pwd", "auth", "signature", "credential");

  private CommandLineSecrets() {}

  /** {@code commandLine} with every URL's secrets hidden; null stays null. */
  public static String redacted(String commandLine) {
    if (commandLine == null) return null;
    Matcher url = URL.matcher(commandLine);
    StringBuilder shown = new StringBuilder(commandLine.length());
    while (url.find())
      url.appendReplacement(shown, Matcher.quoteReplacement(redactedUrl(url.group())));
    url.appendTail(shown);
    return shown.toString();
  }

  private static String redactedUrl(String url) {
    int authority = url.indexOf("://") + 3;
    int authorityEnd = endOf(url, authority, "/?#");
    // The last @ of the authority ends the user info: a password may hold an @ of its own.
    int at = url.lastIndexOf('@', authorityEnd - 1);
    if (at >= authority) {
      url = url.substring(0, authority) + HIDDEN + url.substring(at);
      authorityEnd = endOf(url, authority, "/?#");
    }
    int query = url.indexOf('?', authorityEnd);
    int fragment = url.indexOf('#', authorityEnd);
    StringBuilder shown = new StringBuilder(url.length());
    if (query >= 0 && (fragment < 0 || query < fragment)) {
      shown
          .append(url, 0, query + 1)
          .append(
              redactedParameters(url.substring(query + 1, fragment < 0 ? url.length() : fragment)));
    } else {
      shown.append(url, 0, fragment < 0 ? url.length() : fragment);
    }
    // A fragment may carry parameters too (an OAuth access_token after #).
    if (fragment >= 0) shown.append('#').append(redactedParameters(url.substring(fragment + 1)));
    return shown.toString();
  }

  private static int endOf(String url, int from, String stops) {
    for (int i = from; i < url.length(); i++) if (stops.indexOf(url.charAt(i)) >= 0) return i;
    return url.length();
  }

  /** {@code name=value&name=value} (or ; between), each secret-named value hidden. */
  private static String redactedParameters(String parameters) {
    StringBuilder shown = new StringBuilder(parameters.length());
    int start = 0;
    while (start <= parameters.length()) {
      int end = endOf(parameters, start, "&;");
      String parameter = parameters.substring(start, end);
      int eq = parameter.indexOf('=');
      shown.append(
          eq > 0 && secretName(parameter.substring(0, eq))
              ? parameter.substring(0, eq + 1) + HIDDEN
              : parameter);
      if (end < parameters.length()) shown.append(parameters.charAt(end));
      start = end + 1;
    }
    return shown.toString();
  }

  private static boolean secretName(String name) {
    String lower = name.toLowerCase(Locale.ROOT).replace("%5f", "_").replace("%2d", "-");
    if (lower.equals("sig")) return true;
    for (String word : SECRET_WORDS) if (lower.contains(word)) return true;
    return false;
  }
}
