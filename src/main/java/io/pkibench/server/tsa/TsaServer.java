package io.pkibench.server.tsa;

import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.server.HttpEndpoints;
import java.io.IOException;

/**
 * {@code POST /tsa} with an RFC 3161 TimeStampReq ({@code application/timestamp-query}) →
 * TimeStampResp.
 */
public final class TsaServer extends HttpEndpoints {
  public static final int DEFAULT_PORT = 18318;

  public TsaServer(TimeStampAuthority authority, String bindAddress, int port) throws IOException {
    super(bindAddress, port);
    route(
        "/tsa",
        exchange -> {
          if (!exchange.getRequestMethod().equals("POST")) {
            exchange.getResponseHeaders().set("Allow", "POST");
            refuse(exchange, 405, "POST an RFC 3161 TimeStampReq to /tsa");
            return;
          }
          String type = exchange.getRequestHeaders().getFirst("Content-Type");
          if (type == null || !type.startsWith("application/timestamp-query")) {
            refuse(
                exchange,
                415,
                "Content-Type must be application/timestamp-query (RFC 3161 section 3.4)");
            return;
          }
          byte[] request = body(exchange);
          if (request == null) return;
          send(exchange, 200, "application/timestamp-reply", authority.respond(request));
        });
  }

  public String url() {
    return baseUrl() + "/tsa";
  }
}
