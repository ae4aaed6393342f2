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
import org.shredzone.acme4j.Session;
import org.shredzone.acme4j.connector.HttpConnector;
import org.shredzone.acme4j.connector.NetworkSettings;
import org.shredzone.acme4j.exception.AcmeException;
import org.shredzone.acme4j.provider.AbstractAcmeProvider;
import org.shredzone.acme4j.toolbox.JSON;

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
            // until its 10 s timeout (16 of a loaded test's orders, one per worker), which would be
            // charged to the CA. The default executor stays: a direct one (Runnable::run, to save
            // the hand-offs JFR shows) hung the client after a dozen orders.
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

  /**
   * The directory once per worker: Pebble sends no caching headers, and acme4j then fetches the
   * directory again before every request that looks a resource up (one GET more per order, which a
   * client of a CA whose directory does not change within a run does not need).
   */
  @Override
  public JSON directory(Session session, URI serverUri) throws AcmeException {
    return session.hasDirectory() ? null : super.directory(session, serverUri);
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
