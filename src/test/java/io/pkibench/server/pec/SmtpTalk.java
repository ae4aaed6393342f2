package io.pkibench.server.pec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A raw SMTP conversation on loopback, as an attacker or a careless client types it: one line out,
 * one reply (all its lines) back.
 */
final class SmtpTalk implements AutoCloseable {
  final Socket socket;
  private InputStream in;
  private OutputStream out;
  final String greeting;

  SmtpTalk(int port) throws IOException {
    this(port, null);
  }

  /** From {@code source} (another loopback address such as 127.0.0.2) when given. */
  SmtpTalk(int port, String source) throws IOException {
    socket = new Socket();
    if (source != null) socket.bind(new InetSocketAddress(source, 0));
    socket.setSoTimeout(30_000);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
    greeting = reply();
  }

  /** Sends {@code line} and CRLF; returns the reply. */
  String say(String line) throws IOException {
    out.write((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    return reply();
  }

  void write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** The next reply, its lines joined by a space. */
  String reply() throws IOException {
    StringBuilder all = new StringBuilder();
    while (true) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != '\n') {
        if (b < 0)
          throw new IOException(
              "closed by the server after '"
                  + all
                  + line.toString(StandardCharsets.ISO_8859_1)
                  + "'");
        if (b != '\r') line.write(b);
      }
      String text = line.toString(StandardCharsets.ISO_8859_1);
      if (!all.isEmpty()) all.append(' ');
      all.append(text);
      if (text.length() < 4 || text.charAt(3) != '-') return all.toString();
    }
  }

  /** EHLO, MAIL FROM and each RCPT; the replies to the RCPTs, in order. */
  java.util.List<String> envelope(String from, String... rcpts) throws IOException {
    String ehlo = say("EHLO attacker.test");
    if (!ehlo.startsWith("250")) throw new IOException("EHLO: " + ehlo);
    String mail = say("MAIL FROM:<" + from + ">");
    if (!mail.startsWith("250")) throw new IOException("MAIL FROM: " + mail);
    java.util.List<String> replies = new java.util.ArrayList<>();
    for (String r : rcpts) replies.add(say("RCPT TO:<" + r + ">"));
    return replies;
  }

  /**
   * DATA, the message (already CRLF, no line starting with a dot), the end; the reply to the end.
   */
  String data(String message) throws IOException {
    String go = say("DATA");
    if (!go.startsWith("354")) return go;
    out.write((message + "\r\n.\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    return reply();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
