package io.pkibench.formats.ades;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;

/**
 * A TSA at a URL (RFC 3161 section 3.4: POST application/timestamp-query, answer
 * application/timestamp-reply).
 */
public final class HttpTimeStampResponder implements TimeStampResponder, AutoCloseable {
  public static final String QUERY_TYPE = "application/timestamp-query";
  public static final String REPLY_TYPE = "application/timestamp-reply";

  /** What some TSAs still send, from drafts of RFC 3161: the same DER. */
  static final String DRAFT_REPLY_TYPE = "application/timestamp-response";

  private final URI url;
  private final BinaryHttp http = new BinaryHttp();

  public HttpTimeStampResponder(URI url) {
    this.url = url;
  }

  public URI url() {
    return url;
  }

  @Override
  public byte[] respond(byte[] requestDer) throws IOException {
    try {
      return http.post(url, QUERY_TYPE, requestDer, REPLY_TYPE, DRAFT_REPLY_TYPE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for " + url);
    }
  }

  @Override
  public void close() {
    http.close();
  }
}
