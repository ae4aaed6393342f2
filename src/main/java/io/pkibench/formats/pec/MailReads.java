package io.pkibench.formats.pec;

/** Reading what a damaged message may not give, for the roles that must still answer it. */
final class MailReads {
  private MailReads() {}

  @FunctionalInterface
  interface Read<T> {
    T get() throws Exception;
  }

  /**
   * A header a damaged message cannot give is read as {@code fallback}: the document about it is
   * still issued.
   */
  static <T> T safe(Read<T> read, T fallback) {
    try {
      T v = read.get();
      return v == null ? fallback : v;
    } catch (Exception e) {
      return fallback;
    }
  }

  static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.lines().findFirst().orElse(m);
  }
}
