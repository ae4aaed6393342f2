package io.pkibench.server.pec;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.server.ServerSocketCreator;
import org.subethamail.smtp.server.Session;
import org.subethamail.smtp.server.SessionHandler;

/**
 * What SubEthaSMTP's idle timeout cannot do, since it restarts at every byte: a client that drips
 * one byte every few seconds would hold its connection for ever. Here each connection must send its
 * next command within {@code command} of our last reply (a message's lines within {@code command}
 * of each other), and get a message through within {@code transaction} of connecting or of its last
 * message; one address holds at most {@code perAddress} connections. A watch thread cuts a
 * connection past a deadline by closing its socket, which works the same before and after STARTTLS
 * (our reply bytes are counted on the raw socket, under TLS).
 */
final class SmtpDeadlines implements SessionHandler, ServerSocketCreator, AutoCloseable {
  private final Duration command;
  private final Duration transaction;
  private final int perAddress;
  private final Consumer<String> log;
  private final Map<Session, Connection> bySession = new ConcurrentHashMap<>();
  private final Map<InetAddress, AtomicInteger> perSource = new ConcurrentHashMap<>();
  private final AtomicLong cutCommand = new AtomicLong();
  private final AtomicLong cutTransaction = new AtomicLong();
  private final AtomicLong refusedAddress = new AtomicLong();
  private final Thread watch;
  private volatile boolean closed;

  SmtpDeadlines(Duration command, Duration transaction, int perAddress, Consumer<String> log) {
    this.command = command;
    this.transaction = transaction;
    this.perAddress = perAddress;
    this.log = log;
    this.watch = Thread.ofPlatform().name("smtp-deadlines").daemon().start(this::watch);
  }

  /**
   * One accepted connection: when we last wrote (a reply), whether a message is being read, when
   * the transaction started.
   */
  static final class Connection extends Socket {
    private volatile long lastReplyNanos = System.nanoTime();
    private volatile long lastDataLineNanos;
    private volatile boolean inData;
    private volatile long transactionStartNanos = System.nanoTime();
    private OutputStream replies;

    /**
     * The raw stream, our replies (and, after STARTTLS, the TLS records carrying them) timed as
     * they go.
     */
    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (replies == null) {
        OutputStream raw = super.getOutputStream();
        replies =
            new FilterOutputStream(raw) {
              @Override
              public void write(byte[] b, int off, int len) throws IOException {
                raw.write(b, off, len);
                lastReplyNanos = System.nanoTime();
              }

              @Override
              public void write(int b) throws IOException {
                raw.write(b);
                lastReplyNanos = System.nanoTime();
              }
            };
      }
      return replies;
    }

    /** The client's message begins: its lines are timed from now, not our replies. */
    void dataStarted() {
      lastDataLineNanos = System.nanoTime();
      inData = true;
    }

    /** A line of the message arrived. */
    void dataLine() {
      lastDataLineNanos = System.nanoTime();
    }

    /** The message is read (taken or refused): the next transaction's clock starts. */
    void dataEnded() {
      inData = false;
      lastReplyNanos = System.nanoTime();
      transactionStartNanos = System.nanoTime();
    }
  }

  /**
   * The connection of {@code session}, or null (a session we did not accept, which cannot happen
   * but is harmless).
   */
  Connection of(MessageContext session) {
    return session instanceof Session s ? bySession.get(s) : null;
  }

  @Override
  public ServerSocket createServerSocket() throws IOException {
    return new ServerSocket() {
      @Override
      public Socket accept() throws IOException {
        if (isClosed()) throw new SocketException("Socket is closed");
        Connection c = new Connection();
        implAccept(c);
        c.setTcpNoDelay(
            true); // a reply is one write: sent at once, not held for the client's delayed ACK
        return c;
      }
    };
  }

  @Override
  public SessionAcceptance accept(Session session) {
    if (!(session.getSocket() instanceof Connection c)) return SessionAcceptance.success();
    InetAddress source = session.getRealRemoteAddress().getAddress();
    AtomicInteger n = perSource.computeIfAbsent(source, a -> new AtomicInteger());
    if (n.incrementAndGet() > perAddress) {
      n.decrementAndGet();
      refusedAddress.incrementAndGet();
      return SessionAcceptance.failure(
          421,
          "4.7.0 too many connections from your address (at most "
              + perAddress
              + "); try again later");
    }
    bySession.put(session, c);
    return SessionAcceptance.success();
  }

  @Override
  public void onSessionEnd(Session session) {
    if (bySession.remove(session) == null) return;
    InetAddress source = session.getRealRemoteAddress().getAddress();
    AtomicInteger n = perSource.get(source);
    if (n != null && n.decrementAndGet() <= 0) perSource.remove(source, n);
  }

  private void watch() {
    long said = 0;
    long lastSaid = System.nanoTime();
    while (!closed) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
      long now = System.nanoTime();
      for (Connection c : bySession.values()) {
        boolean commandLate =
            c.inData
                ? now - c.lastDataLineNanos > command.toNanos()
                : now - c.lastReplyNanos > command.toNanos();
        boolean transactionLate = now - c.transactionStartNanos > transaction.toNanos();
        if (!commandLate && !transactionLate) continue;
        (commandLate ? cutCommand : cutTransaction).incrementAndGet();
        try {
          c.close();
        } catch (IOException e) {
          // closed already
        }
      }
      // one line per ten seconds at most, however many are cut: a flood of drips must not become a
      // flood of log lines
      long total = cutCommand.get() + cutTransaction.get() + refusedAddress.get();
      if (total != said && now - lastSaid > 10_000_000_000L) {
        log.accept(
            "smtp: so far "
                + cutCommand.get()
                + " connections cut past the "
                + command.toSeconds()
                + " s command deadline, "
                + cutTransaction.get()
                + " past the "
                + transaction.toSeconds()
                + " s transaction deadline, "
                + refusedAddress.get()
                + " refused past "
                + perAddress
                + " per address");
        said = total;
        lastSaid = now;
      }
    }
  }

  long cutByCommandDeadline() {
    return cutCommand.get();
  }

  @Override
  public void close() {
    closed = true;
    watch.interrupt();
  }
}
