package io.pkibench.server.pec;

import java.util.Locale;

/**
 * An SMTP envelope address the provider takes: a local part of safe characters and a domain, both
 * case-folded once, here. Quoted local parts, source routes, {@code /}, {@code \}, {@code ..} and
 * control characters are refused with the reason, because the local part names a directory under
 * {@code --mailboxes} and every later step (Jakarta Mail's address check, the spool's header line)
 * must be able to take what RCPT accepted.
 */
record MailAddress(String localPart, String domain) {
  /** RFC 5321's limits: 64 octets of local part, 255 of domain. */
  private static final int MAX_LOCAL = 64;

  private static final int MAX_DOMAIN = 253;

  /**
   * The address, folded; or {@link IllegalArgumentException} saying what is wrong with it, in words
   * for the SMTP reply.
   */
  static MailAddress parse(String raw) {
    if (raw == null || raw.isEmpty()) throw new IllegalArgumentException("an empty address");
    if (raw.length() > MAX_LOCAL + 1 + MAX_DOMAIN)
      throw new IllegalArgumentException(
          "longer than " + (MAX_LOCAL + 1 + MAX_DOMAIN) + " characters");
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c < 0x20 || c == 0x7f)
        throw new IllegalArgumentException("a control character in the address");
      if (c > 0x7e) throw new IllegalArgumentException("a character outside ASCII in the address");
    }
    int at = raw.lastIndexOf('@');
    if (at < 0) throw new IllegalArgumentException("no @domain");
    String local = raw.substring(0, at).toLowerCase(Locale.ROOT);
    String domain = raw.substring(at + 1).toLowerCase(Locale.ROOT);
    if (local.isEmpty()) throw new IllegalArgumentException("an empty local part");
    if (local.length() > MAX_LOCAL)
      throw new IllegalArgumentException("a local part longer than " + MAX_LOCAL + " characters");
    if (local.indexOf('"') >= 0)
      throw new IllegalArgumentException("a quoted local part, which this provider does not take");
    if (local.indexOf('/') >= 0 || local.indexOf('\\') >= 0)
      throw new IllegalArgumentException("a / or \\ in the local part");
    if (local.contains("..") || local.startsWith(".") || local.endsWith(".")) {
      throw new IllegalArgumentException(
          "a local part that starts or ends with a dot or holds '..'");
    }
    for (int i = 0; i < local.length(); i++) {
      char c = local.charAt(i);
      boolean safe =
          (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '-'
              || c == '_'
              || c == '+';
      if (!safe)
        throw new IllegalArgumentException(
            "'" + c + "' in the local part (letters, digits and . - _ + only)");
    }
    if (!validDomain(domain))
      throw new IllegalArgumentException(
          "'" + domain + "' is not a domain name (letters, digits, - and dots between labels)");
    return new MailAddress(local, domain);
  }

  private static boolean validDomain(String d) {
    if (d.isEmpty() || d.length() > MAX_DOMAIN) return false;
    for (String label : d.split("\\.", -1)) {
      if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-"))
        return false;
      for (int i = 0; i < label.length(); i++) {
        char c = label.charAt(i);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
      }
    }
    return true;
  }

  /**
   * {@code text} with every character outside printable ASCII (and the backslash) written as {@code
   * \\xNN} or {@code \\uNNNN}, cut at 200 characters: for SMTP replies, which take ASCII only; a
   * log line takes {@link io.pkibench.text.OutsideText} instead.
   */
  static String printable(String text) {
    if (text == null) return "";
    StringBuilder s = new StringBuilder(Math.min(text.length(), 200) + 16);
    int i = 0;
    for (; i < text.length() && s.length() < 200; i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c < 0x7f && c != '\\') s.append(c);
      else if (c <= 0xff) s.append(String.format("\\x%02x", (int) c));
      else s.append(String.format("\\u%04x", (int) c));
    }
    if (i < text.length()) s.append("...");
    return s.toString();
  }

  @Override
  public String toString() {
    return localPart + "@" + domain;
  }
}
