package io.pkibench.server.tlsecho;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.server.tlsecho.TlsEchoServer.Counters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * One connection's state machine of {@link TlsEchoServer} over the frames of {@link EchoProtocol};
 * bytes are never held beyond one request.
 */
final class Transactions extends ChannelInboundHandlerAdapter {
  private final Counters counters;
  private final byte[] header = new byte[EchoProtocol.HEADER_BYTES];
  private int headerFilled;
  private byte kind;
  private int requestLength;
  private int responseLength;
  private byte[] request;
  private int bodyFilled = -1; // -1: reading a header
  private final CRC32 streamCrc = new CRC32();
  private int streamFrames;
  private long streamBytes;

  private final Duration frameDeadline;

  /** Cuts the connection if the frame begun is not whole by then; cancelled when it is. */
  private ScheduledFuture<?> frameDue;

  Transactions(Counters counters, Duration frameDeadline) {
    this.counters = counters;
    this.frameDeadline = frameDeadline;
  }

  /**
   * A frame's first byte: from now it has {@code frameDeadline} to arrive whole, however it
   * trickles.
   */
  private void frameBegun(ChannelHandlerContext ctx) {
    if (frameDue != null) return;
    frameDue =
        ctx.executor()
            .schedule(
                () -> {
                  counters.timeouts.incrementAndGet();
                  ctx.close();
                },
                frameDeadline.toNanos(),
                TimeUnit.NANOSECONDS);
  }

  private void frameWhole() {
    if (frameDue != null) frameDue.cancel(false);
    frameDue = null;
  }

  /**
   * Whether this connection's first byte has been seen: 'G' or 'P' (no frame kind of ours) makes it
   * an HTTP connection.
   */
  private boolean sniffed;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    if (!sniffed && in.isReadable()) {
      sniffed = true;
      byte first = in.getByte(in.readerIndex());
      if (first == 'G' || first == 'P') {
        HttpAnswers.install(ctx, counters);
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(in); // the next handler is now the HTTP codec
        return;
      }
    }
    try {
      counters.bytesIn.addAndGet(in.readableBytes());
      while (in.isReadable() && ctx.channel().isOpen()) {
        if (bodyFilled < 0) readHeader(ctx, in);
        else readBody(ctx, in);
      }
    } finally {
      in.release();
    }
    // A client that sends without reading its answers must not grow our outbound buffer: stop
    // reading until it drains.
    if (!ctx.channel().isWritable()) ctx.channel().config().setAutoRead(false);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) ctx.channel().config().setAutoRead(true);
    ctx.fireChannelWritabilityChanged();
  }

  private void readHeader(ChannelHandlerContext ctx, ByteBuf in) {
    if (headerFilled == 0) frameBegun(ctx);
    int n = Math.min(in.readableBytes(), header.length - headerFilled);
    in.readBytes(header, headerFilled, n);
    headerFilled += n;
    if (headerFilled < header.length) return;
    headerFilled = 0;
    kind = header[0];
    requestLength =
        ((header[1] & 0xff) << 24)
            | ((header[2] & 0xff) << 16)
            | ((header[3] & 0xff) << 8)
            | (header[4] & 0xff);
    responseLength =
        ((header[5] & 0xff) << 24)
            | ((header[6] & 0xff) << 16)
            | ((header[7] & 0xff) << 8)
            | (header[8] & 0xff);
    boolean valid =
        switch (kind) {
          case EchoProtocol.REQUEST ->
              requestLength > 0
                  && requestLength <= EchoProtocol.MAX_FRAME_BYTES
                  && responseLength >= 0
                  && responseLength <= EchoProtocol.MAX_FRAME_BYTES;
          case EchoProtocol.STREAM ->
              requestLength >= 0
                  && requestLength <= EchoProtocol.MAX_FRAME_BYTES
                  && responseLength == 0;
          case EchoProtocol.ACKNOWLEDGE, EchoProtocol.COUNTERS ->
              requestLength == 0 && responseLength == 0;
          default -> false;
        };
    if (!valid) {
      counters.protocolErrors.incrementAndGet();
      ctx.close();
      return;
    }
    bodyFilled = 0;
    if (kind == EchoProtocol.REQUEST && (request == null || request.length < requestLength))
      request = new byte[requestLength];
    if (requestLength == 0) finish(ctx);
  }

  private void readBody(ChannelHandlerContext ctx, ByteBuf in) {
    int n = Math.min(in.readableBytes(), requestLength - bodyFilled);
    if (kind == EchoProtocol.REQUEST) {
      in.readBytes(request, bodyFilled, n);
    } else {
      // Stream bytes go into the CRC as they arrive: a 16 KB frame or a 1 GB stream costs the
      // same memory.
      if (in.hasArray()) {
        streamCrc.update(in.array(), in.arrayOffset() + in.readerIndex(), n);
      } else {
        streamCrc.update(in.nioBuffer(in.readerIndex(), n));
      }
      in.skipBytes(n);
    }
    bodyFilled += n;
    if (bodyFilled == requestLength) finish(ctx);
  }

  private void finish(ChannelHandlerContext ctx) {
    bodyFilled = -1;
    frameWhole();
    switch (kind) {
      case EchoProtocol.REQUEST -> {
        ByteBuf response = ctx.alloc().buffer(responseLength);
        for (int written = 0; written < responseLength; written += requestLength) {
          response.writeBytes(request, 0, Math.min(requestLength, responseLength - written));
        }
        // counted before the answer leaves: a client that reads it and asks for the counters at
        // once must see it
        counters.transactions.incrementAndGet();
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
      }
      case EchoProtocol.STREAM -> {
        streamFrames++;
        streamBytes += requestLength;
        counters.transactions.incrementAndGet();
      }
      case EchoProtocol.ACKNOWLEDGE -> {
        byte[] ack = EchoProtocol.Ack.of(streamFrames, streamCrc, streamBytes).encode();
        streamFrames = 0;
        streamBytes = 0;
        streamCrc.reset();
        ctx.writeAndFlush(ctx.alloc().buffer(ack.length).writeBytes(ack))
            .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
      }
      case EchoProtocol.COUNTERS -> {
        byte[] json = counters.json().getBytes(StandardCharsets.UTF_8);
        ctx.writeAndFlush(
                ctx.alloc().buffer(4 + json.length).writeInt(json.length).writeBytes(json))
            .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
      }
      default -> throw new IllegalStateException("unreachable: kinds are checked in readHeader");
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent) {
      counters.timeouts.incrementAndGet();
      ctx.close();
    } else if (event instanceof SslHandshakeCompletionEvent done) {
      if (done.isSuccess()) {
        counters.handshakes.incrementAndGet();
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        // asked only where a certificate was asked for: without one the engine answers by
        // throwing, a stack trace filled in on every connection (seen in the ACRR profile)
        if (ssl != null && (ssl.engine().getNeedClientAuth() || ssl.engine().getWantClientAuth())) {
          try {
            if (ssl.engine().getSession().getPeerCertificates().length > 0)
              counters.clientCertificates.incrementAndGet();
          } catch (SSLPeerUnverifiedException none) {
            // the client presented no certificate (--client-auth want)
          }
        }
      } else countHandshakeFailure(ctx);
    }
    ctx.fireUserEventTriggered(event);
  }

  private boolean handshakeCounted;

  private void countHandshakeFailure(ChannelHandlerContext ctx) {
    if (!handshakeCounted) {
      handshakeCounted = true;
      counters.handshakeFailures.incrementAndGet();
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    frameWhole();
    if (bodyFilled >= 0 || headerFilled > 0) counters.truncated.incrementAndGet();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A client's garbage, reset or broken record: counted by kind, the connection closed, nothing
    // else touched.
    if (cause instanceof NotSslRecordException || cause.getCause() instanceof SSLException) {
      countHandshakeFailure(ctx);
    } else if (!(cause instanceof IOException)) {
      counters.protocolErrors.incrementAndGet();
    }
    ctx.close();
  }
}
