package io.pkibench.server;

/**
 * A reference service as {@code pkibench serve} runs it: started once, named by its URL, closed on
 * exit.
 */
public interface ReferenceServer extends AutoCloseable {
  void start() throws Exception;

  /**
   * Where clients reach it, e.g. {@code https://127.0.0.1:8443} or {@code tls://127.0.0.1:8444}.
   */
  String baseUrl();

  /** Said once when it listens, after the URL: other ports, engines, limits. */
  default String details() {
    return "";
  }

  /**
   * The process whose CPU is this service's, with its descendants: this JVM, or a server it runs
   * (nginx's master).
   */
  default long pid() {
    return ProcessHandle.current().pid();
  }

  @Override
  void close();
}
