package io.pkibench.workload.acme;

import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.shredzone.acme4j.connector.HttpConnector;
import org.shredzone.acme4j.connector.NetworkSettings;
import org.shredzone.acme4j.provider.AbstractAcmeProvider;

/**
 * acme4j's provider for a CA at any URL whose TLS chains to {@code trust}, over one HTTP client a
 * worker keeps: acme4j builds a client per request by default, which would add a TCP connection and
 * a TLS handshake to every ACME request, and measure those instead of the CA's issuance.
 */
final class SharedHttpClient extends AbstractAcmeProvider {
  private final HttpClient client;

  SharedHttpClient(SSLContext trust, Duration timeout) {
    this.client =
        HttpClient.newBuilder()
            .sslContext(trust)
            // HTTP/1.1 keep-alive: over HTTP/2 to Pebble (Go) a worker's request now and then hung
            // until its
            // 10 s timeout (16 of a loaded test's orders, one per worker), which would be charged
            // to the CA
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NORMAL)
            .build();
  }

  @Override
  public boolean accepts(URI serverUri) {
    return "https".equals(serverUri.getScheme()) || "http".equals(serverUri.getScheme());
  }

  @Override
  public URL resolve(URI serverUri) {
    try {
      return serverUri.toURL();
    } catch (Exception e) {
      throw new IllegalArgumentException("not a URL: " + serverUri, e);
    }
  }

  @Override
  protected HttpConnector createHttpConnector(NetworkSettings settings) {
    return new HttpConnector(settings) {
      @Override
      public HttpClient.Builder createClientBuilder() {
        return new Fixed(client);
      }
    };
  }

  void close() {
    client.close();
  }

  /** A builder that ignores its settings and gives the one client: acme4j's per-request build. */
  private record Fixed(HttpClient client) implements HttpClient.Builder {
    @Override
    public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
      return this;
    }

    @Override
    public HttpClient.Builder connectTimeout(Duration duration) {
      return this;
    }

    @Override
    public HttpClient.Builder sslContext(SSLContext sslContext) {
      return this;
    }

    @Override
    public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
      return this;
    }

    @Override
    public HttpClient.Builder executor(Executor executor) {
      return this;
    }

    @Override
    public HttpClient.Builder followRedirects(HttpClient.Redirect policy) {
      return this;
    }

    @Override
    public HttpClient.Builder version(HttpClient.Version version) {
      return this;
    }

    @Override
    public HttpClient.Builder priority(int priority) {
      return this;
    }

    @Override
    public HttpClient.Builder proxy(ProxySelector proxySelector) {
      return this;
    }

    @Override
    public HttpClient.Builder authenticator(Authenticator authenticator) {
      return this;
    }

    @Override
    public HttpClient.Builder localAddress(InetAddress localAddr) {
      return this;
    }

    @Override
    public HttpClient build() {
      return client;
    }
  }
}
