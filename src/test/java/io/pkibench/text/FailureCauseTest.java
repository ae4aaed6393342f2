package io.pkibench.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Exception chains as the JDK throws them on loopback (refused, unknown host, timed out) and as
 * workloads wrap them, in words.
 */
@org.junit.jupiter.api.Timeout(value = 1, unit = java.util.concurrent.TimeUnit.MINUTES)
class FailureCauseTest {

  static int freePort() throws IOException {
    return io.pkibench.testing.ReservedPorts.one();
  }

  static Throwable failureOf(String url, Duration timeout) {
    try (HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build()) {
      client.send(
          HttpRequest.newBuilder(URI.create(url)).timeout(timeout).build(),
          HttpResponse.BodyHandlers.discarding());
      throw new AssertionError(url + " answered");
    } catch (IOException | InterruptedException e) {
      return e;
    }
  }

  @Test
  void of_httpClientToAPortWithNothingListening_saysConnectionRefusedNamingTheClass()
      throws Exception {
    FailureCause cause =
        FailureCause.of(failureOf("http://127.0.0.1:" + freePort() + "/", Duration.ofSeconds(10)));
    assertEquals(FailureCause.Kind.REFUSED, cause.kind(), cause.sentence());
    assertEquals("connection refused (ConnectException)", cause.sentence());
  }

  @Test
  void of_socketToAPortWithNothingListening_saysConnectionRefused() throws Exception {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(
          new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), freePort()), 5_000);
      throw new AssertionError("connected");
    } catch (java.net.ConnectException e) {
      assertEquals("connection refused (ConnectException)", FailureCause.sentenceOf(e));
    }
  }

  @Test
  void of_unknownHost_saysUnknownHost() {
    FailureCause cause =
        FailureCause.of(failureOf("http://no-such-host.invalid/", Duration.ofSeconds(10)));
    assertEquals(FailureCause.Kind.UNKNOWN_HOST, cause.kind(), cause.sentence());
    assertTrue(cause.sentence().startsWith("unknown host"), cause.sentence());
    FailureCause resolved =
        FailureCause.of(new java.net.UnknownHostException("no-such-host.invalid"));
    assertEquals("unknown host no-such-host.invalid (UnknownHostException)", resolved.sentence());
  }

  @Test
  void of_serverThatNeverAnswers_saysTimedOut() throws Exception {
    // Accepted by the kernel's backlog, never read: the request goes out and no answer comes.
    try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
      FailureCause cause =
          FailureCause.of(
              failureOf("http://127.0.0.1:" + silent.getLocalPort() + "/", Duration.ofMillis(300)));
      assertEquals(FailureCause.Kind.TIMED_OUT, cause.kind(), cause.sentence());
      assertTrue(
          cause.sentence().contains("timed out") && cause.sentence().endsWith("TimeoutException)"),
          cause.sentence());
    }
  }

  @Test
  void of_untrustedServerCertificate_saysNotTrustedBehindTheWorkloadsOwnWords() {
    // The chain JSSE throws for a certificate no anchor vouches for, wrapped as a TLS workload
    // wraps it.
    var builder =
        new java.security.cert.CertPathBuilderException(
            "unable to find valid certification path to requested target");
    var handshake =
        new javax.net.ssl.SSLHandshakeException("PKIX path building failed: " + builder);
    handshake.initCause(builder);
    var wrapped =
        new javax.net.ssl.SSLException(
            "TLS handshake with tls://127.0.0.1:8443 failed: " + handshake.getMessage(), handshake);
    FailureCause bare = FailureCause.of(handshake);
    assertEquals(FailureCause.Kind.TLS_UNTRUSTED, bare.kind());
    assertTrue(
        bare.sentence().startsWith("TLS handshake failed: the server's certificate is not trusted"),
        bare.sentence());
    FailureCause named = FailureCause.of(wrapped);
    assertTrue(
        named.sentence().startsWith("TLS handshake with tls://127.0.0.1:8443 failed"),
        named.sentence());
    assertTrue(
        named.sentence().contains("the server's certificate is not trusted")
            && named.sentence().contains("CertPathBuilderException"),
        named.sentence());
  }

  @Test
  void of_nestedChain_keepsEachDistinctMessageOnceAndTheClassesInParentheses() {
    var root = new IllegalStateException("key not found");
    var middle = new RuntimeException("java.lang.IllegalStateException: key not found", root);
    var outer = new IOException("signing request failed", middle);
    assertEquals(
        "signing request failed: key not found (IOException <- IllegalStateException)",
        FailureCause.sentenceOf(outer));
    assertEquals(
        "connection reset (IOException)",
        FailureCause.sentenceOf(new IOException("connection reset")));
    String classesOnly =
        FailureCause.sentenceOf(new IOException(new java.nio.channels.ClosedChannelException()));
    assertFalse(classesOnly.contains("java."), classesOnly);
    assertTrue(classesOnly.contains("ClosedChannelException"), classesOnly);
  }

  @Test
  void of_causeThatLoops_ends() {
    var a = new IOException("a");
    var b = new IOException("b", a);
    a.initCause(b);
    assertEquals("a: b (IOException)", FailureCause.sentenceOf(a));
  }
}
