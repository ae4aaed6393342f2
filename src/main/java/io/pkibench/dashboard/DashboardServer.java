package io.pkibench.dashboard;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The dashboard's HTTP/1.1 server, on a plain server socket so that every limit is its own: at most
 * {@link Limits#maxClients} connections at once (one more is answered 503 and closed), one request
 * per connection, its head at most {@link #MAX_HEAD_BYTES}, and each exchange closed once {@link
 * Limits#exchangeWithin} has passed, so a reader that never reads holds one rendering (a bounded
 * byte array, made when it asked) for that long and no more: nothing queues for it. Only GET (405
 * otherwise), and only with a Host header naming the address it is bound to (421 otherwise: a page
 * of another site that a DNS name rebound to this address cannot read it).
 */
public final class DashboardServer implements AutoCloseable {
  static final int MAX_HEAD_BYTES = 8 * 1024;

  /** The bounds a hostile client meets. */
  public record Limits(int maxClients, Duration exchangeWithin) {
    public static final Limits DEFAULT = new Limits(16, Duration.ofSeconds(10));
  }

  /** The two things served, rendered afresh per request. */
  public interface Pages {
    /** The page itself, HTML. */
    byte[] page();

    /** The live part and its figures, JSON. */
    byte[] live();
  }

  private final ServerSocket socket;
  private final Pages pages;
  private final Limits limits;
  private final Set<String> hosts;
  private final Semaphore clients;
  private final ScheduledExecutorService deadlines;
  private final Thread acceptor;

  private DashboardServer(ServerSocket socket, Pages pages, Limits limits, Set<String> hosts) {
    this.socket = socket;
    this.pages = pages;
    this.limits = limits;
    this.hosts = hosts;
    this.clients = new Semaphore(limits.maxClients());
    this.deadlines =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("pkibench-dashboard-deadlines").unstarted(r));
    this.acceptor =
        Thread.ofPlatform().daemon().name("pkibench-dashboard").unstarted(this::acceptLoop);
  }

  /**
   * Listens on {@code bind} (port 0: any free one); {@code hostGiven}: the address as the user
   * wrote it, also accepted in a Host header.
   */
  public static DashboardServer start(
      InetSocketAddress bind, String hostGiven, Pages pages, Limits limits) throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.bind(bind, 50);
    } catch (IOException e) {
      socket.close();
      throw new IOException("--dashboard: cannot listen on " + bind + ": " + e.getMessage(), e);
    }
    int port = socket.getLocalPort();
    InetAddress address = socket.getInetAddress();
    // The user's spelling may repeat one of the others: a set of them all.
    Set<String> hosts =
        new LinkedHashSet<>(
            address.isLoopbackAddress()
                ? List.of("127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port)
                : List.of(hostPort(address.getHostAddress(), port)));
    hosts.add(hostPort(hostGiven, port));
    DashboardServer server = new DashboardServer(socket, pages, limits, Set.copyOf(hosts));
    server.acceptor.start();
    return server;
  }

  private static String hostPort(String host, int port) {
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return h.toLowerCase(Locale.ROOT) + ":" + port;
  }

  /** The page's address, as printed for the user. */
  public String url() {
    InetAddress a = socket.getInetAddress();
    String host =
        a.isLoopbackAddress() && !a.getHostAddress().contains(":")
            ? "127.0.0.1"
            : hostPort(a.getHostAddress(), 0).replaceFirst(":0$", "");
    return "http://" + host + ":" + socket.getLocalPort() + "/";
  }

  public int port() {
    return socket.getLocalPort();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      Socket client;
      try {
        client = socket.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (!clients.tryAcquire()) {
        refuse(client); // here: a flood of refusals takes no thread each
        continue;
      }
      Thread.ofVirtual()
          .name("pkibench-dashboard-client")
          .start(
              () -> {
                try {
                  serve(client);
                } finally {
                  clients.release();
                }
              });
    }
  }

  /** Over the cap: a short answer, written to a fresh socket's empty buffer, and closed. */
  private void refuse(Socket client) {
    try (client) {
      client.setSoTimeout(1000);
      answer(
          client.getOutputStream(),
          503,
          "Service Unavailable",
          "text/plain",
          text("too many dashboard clients (at most " + limits.maxClients() + ")\n"));
    } catch (IOException ignored) {
      // the client went away: nothing to tell it
    }
  }

  private void serve(Socket client) {
    ScheduledFuture<?> deadline =
        deadlines.schedule(
            () -> abort(client), limits.exchangeWithin().toMillis(), TimeUnit.MILLISECONDS);
    try (client) {
      client.setSoTimeout((int) limits.exchangeWithin().toMillis());
      String head = readHead(client.getInputStream());
      OutputStream out = client.getOutputStream();
      if (head == null) {
        answer(out, 431, "Request Header Fields Too Large", "text/plain", text("head too large\n"));
        return;
      }
      String[] lines = head.split("\r\n");
      String[] request = lines[0].split(" ");
      if (request.length != 3 || !request[2].startsWith("HTTP/1.")) {
        answer(out, 400, "Bad Request", "text/plain", text("not an HTTP/1.x request\n"));
        return;
      }
      if (!request[0].equals("GET")) {
        answer(out, 405, "Method Not Allowed", "text/plain", text("only GET\n"));
        return;
      }
      String host = null;
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0 && lines[i].substring(0, colon).trim().equalsIgnoreCase("host")) {
          if (host != null) host = ""; // two Host headers: neither is believed
          else host = lines[i].substring(colon + 1).trim().toLowerCase(Locale.ROOT);
        }
      }
      if (host == null || !hosts.contains(host)) {
        answer(
            out,
            421,
            "Misdirected Request",
            "text/plain",
            text("this dashboard answers only to " + String.join(" or ", hosts) + "\n"));
        return;
      }
      String path = request[1].replaceFirst("\\?.*$", "");
      switch (path) {
        case "/" -> answer(out, 200, "OK", "text/html; charset=utf-8", pages.page());
        case "/live.json" -> answer(out, 200, "OK", "application/json", pages.live());
        default -> answer(out, 404, "Not Found", "text/plain", text("no such page\n"));
      }
    } catch (IOException ignored) {
      // a client that went away or ran past its deadline: its socket is closed, nothing else held
    } finally {
      deadline.cancel(false);
    }
  }

  /** The request's head up to its blank line; null when it runs past {@link #MAX_HEAD_BYTES}. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (head.size() < MAX_HEAD_BYTES) {
      int b = in.read();
      if (b < 0) throw new SocketException("closed before the request's end");
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) return head.toString(StandardCharsets.ISO_8859_1);
    }
    return null;
  }

  private static void answer(OutputStream out, int code, String reason, String type, byte[] body)
      throws IOException {
    String head =
        "HTTP/1.1 "
            + code
            + " "
            + reason
            + "\r\nContent-Type: "
            + type
            + "\r\nContent-Length: "
            + body.length
            + "\r\nCache-Control: no-store\r\nConnection: close\r\nX-Content-Type-Options: nosniff"
            // The page may load nothing from anywhere: its style and script are inline, its charts
            // inline SVG, and it fetches only its own JSON.
            + "\r\nContent-Security-Policy: default-src 'none'; style-src 'unsafe-inline';"
            + " script-src 'unsafe-inline'; connect-src 'self'; img-src data:"
            + (code == 405 ? "\r\nAllow: GET" : "")
            + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Ends an exchange past its deadline with a reset: a plain close leaves the answer's unsent part
   * queued in the kernel for a reader that may never read it (a test saw such a connection stay
   * open with no end sent); a reset discards it at once.
   */
  private static void abort(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (IOException ignored) {
      // already closed: nothing queued
    }
    closeQuietly(s);
  }

  private static void closeQuietly(Closeable s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing is all that was asked
    }
  }

  /** Connections held now (for tests and the overhead benchmark's log). */
  int clientsHeld() {
    return limits.maxClients() - clients.availablePermits();
  }

  @Override
  public void close() {
    closeQuietly(socket);
    deadlines.shutdownNow();
    try {
      acceptor.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
