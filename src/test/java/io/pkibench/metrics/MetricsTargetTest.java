package io.pkibench.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MetricsTargetTest {
  @Test
  void parse_httpUrlOfEitherKind_keptWithItsKind() {
    MetricsTarget rw = MetricsTarget.parse("prometheus-rw=http://127.0.0.1:9090/api/v1/write");
    assertEquals(MetricsTarget.Kind.PROMETHEUS_RW, rw.kind());
    assertEquals("/api/v1/write", rw.uri().getPath());
    assertEquals(MetricsTarget.Kind.OTLP, MetricsTarget.parse("otlp=https://[::1]:4318").kind());
  }

  @Test
  void parse_notHttpOrNoKind_refusedNamingTheFlagAndTheFix() {
    var ftp =
        assertThrows(
            IllegalArgumentException.class,
            () -> MetricsTarget.parse("prometheus-rw=ftp://127.0.0.1/write"));
    assertEquals(
        "--metrics prometheus-rw=ftp://127.0.0.1/write: the receiver must be an http:// or https:// URL,"
            + " e.g. prometheus-rw=http://127.0.0.1:9090/api/v1/write",
        ftp.getMessage());
    var bare =
        assertThrows(
            IllegalArgumentException.class,
            () -> MetricsTarget.parse("http://127.0.0.1:9090/api/v1/write"));
    assertTrue(
        bare.getMessage()
            .startsWith("--metrics http://127.0.0.1:9090/api/v1/write: give prometheus-rw=URL"),
        bare.getMessage());
    var unknown =
        assertThrows(
            IllegalArgumentException.class,
            () -> MetricsTarget.parse("graphite=http://127.0.0.1:2003"));
    assertTrue(unknown.getMessage().contains("or otlp=URL"), unknown.getMessage());
    var hostless =
        assertThrows(
            IllegalArgumentException.class, () -> MetricsTarget.parse("otlp=http:///v1/metrics"));
    assertTrue(hostless.getMessage().contains("names no host"), hostless.getMessage());
  }

  @Test
  void shown_urlWithUserInfoAndQuery_keepsNeitherWhereATokenCouldHide() {
    MetricsTarget t =
        MetricsTarget.parse(
            "prometheus-rw=https://user:s3cret@127.0.0.1:9090/api/v1/write?token=s3cret");
    assertEquals("prometheus-rw=https://127.0.0.1:9090/api/v1/write", t.toString());
    var refused =
        assertThrows(
            IllegalArgumentException.class,
            () -> MetricsTarget.parse("otlp=ftp://user:s3cret@127.0.0.1/?k=s3cret"));
    assertTrue(!refused.getMessage().contains("s3cret"), refused.getMessage());
  }

  @Test
  void parse_unknownKindWithSecretsInItsUrl_messageHoldsNeither() {
    var unknown =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                MetricsTarget.parse(
                    "prometheus=https://user:s3cret@127.0.0.1/write?api_key=s3cret"));
    assertTrue(
        unknown
            .getMessage()
            .startsWith(
                "--metrics prometheus=https://***@127.0.0.1/write?api_key=***: give prometheus-rw=URL"),
        unknown.getMessage());
  }

  @Test
  void otlpEndpoint_baseUrlOrFullPath_metricsPathAddedOnce() {
    assertEquals(
        "http://127.0.0.1:4318/v1/metrics",
        OtlpSink.endpoint(MetricsTarget.parse("otlp=http://127.0.0.1:4318").uri()));
    assertEquals(
        "http://127.0.0.1:9090/api/v1/otlp/v1/metrics",
        OtlpSink.endpoint(MetricsTarget.parse("otlp=http://127.0.0.1:9090/api/v1/otlp/").uri()));
    assertEquals(
        "http://127.0.0.1:4318/v1/metrics",
        OtlpSink.endpoint(MetricsTarget.parse("otlp=http://127.0.0.1:4318/v1/metrics").uri()));
  }
}
