package io.pkibench.server.tlsecho;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.pkibench.formats.tls.EchoProtocol;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * tlsecho's HTTP/1.1 answers on the same ports, for the https-* workloads (so our server is
 * measured as nginx is): {@code GET /bytes/N} answers N bytes (up to 1 MiB), {@code POST /sink}
 * reads the body and answers its byte count in decimal; anything else 404. Keep-alive as the client
 * asks. Bodies are counted as they arrive, never held: a POST costs the same memory whatever its
 * size.
 */
final class HttpAnswers extends SimpleChannelInboundHandler<HttpObject> {
  /** One read-only block every GET answers from. */
  private static final ByteBuf BYTES =
      Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(pattern()).asReadOnly());

  private final TlsEchoServer.Counters counters;
  private boolean sinking;
  private boolean keepAlive;
  private long sunk;

  private HttpAnswers(TlsEchoServer.Counters counters) {
    this.counters = counters;
  }

  private static byte[] pattern() {
    byte[] b = new byte[EchoProtocol.MAX_FRAME_BYTES];
    for (int i = 0; i < b.length; i++) b[i] = (byte) ('a' + i % 26);
    return b;
  }

  /**
   * Puts the codec and the answers after {@code ctx}'s handler; headers bounded as the JDK-based
   * services bound theirs.
   */
  static void install(ChannelHandlerContext ctx, TlsEchoServer.Counters counters) {
    ctx.pipeline()
        .addAfter(ctx.name(), "http-codec", new HttpServerCodec(8192, 32 * 1024, 64 * 1024));
    ctx.pipeline().addAfter("http-codec", "http-answers", new HttpAnswers(counters));
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
    if (msg instanceof HttpRequest request) {
      if (request.decoderResult().isFailure()) {
        counters.protocolErrors.incrementAndGet();
        answer(
            ctx,
            HttpResponseStatus.BAD_REQUEST,
            Unpooled.copiedBuffer("bad request\n", StandardCharsets.US_ASCII),
            false);
        return;
      }
      keepAlive = HttpUtil.isKeepAlive(request);
      String path = request.uri();
      if (request.method().equals(HttpMethod.POST) && path.equals("/sink")) {
        sinking = true;
        sunk = 0;
      } else if (request.method().equals(HttpMethod.GET) && path.startsWith("/bytes/")) {
        int n = -1;
        try {
          n = Integer.parseInt(path.substring("/bytes/".length()));
        } catch (NumberFormatException e) {
          // answered 400 below
        }
        if (n < 0 || n > EchoProtocol.MAX_FRAME_BYTES) {
          answer(
              ctx,
              HttpResponseStatus.BAD_REQUEST,
              Unpooled.copiedBuffer(
                  "give /bytes/N, N from 0 to " + EchoProtocol.MAX_FRAME_BYTES + "\n",
                  StandardCharsets.US_ASCII),
              keepAlive);
        } else {
          counters.transactions.incrementAndGet();
          answer(ctx, HttpResponseStatus.OK, BYTES.retainedSlice(0, n), keepAlive);
        }
      } else {
        answer(
            ctx,
            HttpResponseStatus.NOT_FOUND,
            Unpooled.copiedBuffer(
                "tlsecho answers GET /bytes/N and POST /sink\n", StandardCharsets.US_ASCII),
            keepAlive);
      }
    }
    if (msg instanceof HttpContent content && sinking) {
      sunk += content.content().readableBytes();
      counters.bytesIn.addAndGet(content.content().readableBytes());
      if (msg instanceof LastHttpContent) {
        sinking = false;
        counters.transactions.incrementAndGet();
        answer(
            ctx,
            HttpResponseStatus.OK,
            Unpooled.copiedBuffer(Long.toString(sunk), StandardCharsets.US_ASCII),
            keepAlive);
      }
    }
  }

  private static void answer(
      ChannelHandlerContext ctx, HttpResponseStatus status, ByteBuf body, boolean keepAlive) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
    if (!keepAlive) response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    var written = ctx.writeAndFlush(response);
    written.addListener(
        keepAlive ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE);
  }

  /**
   * The idle timeout holds for HTTP connections as for frames (the frame deadline does not: a slow
   * request is cut when idle).
   */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent) {
      counters.timeouts.incrementAndGet();
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!(cause instanceof IOException)) counters.protocolErrors.incrementAndGet();
    ctx.close();
  }
}
