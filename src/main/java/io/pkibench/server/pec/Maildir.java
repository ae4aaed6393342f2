package io.pkibench.server.pec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The users' mailboxes, one Maildir per address under a root ({@code ROOT/user@domain/{tmp,new,cur}}),
 * the format any Maildir reader opens. A message's file name comes from its Message-ID and the
 * mailbox, so delivering the same message twice (a job redone after a crash) leaves one file.
 */
final class Maildir {
  private final Path root;
  private final Durable durable;

  Maildir(Path root, Durable durable) {
    this.root = root;
    this.durable = durable;
  }

  /** An address that names no mailbox under the root: delivering to it can never succeed. */
  static final class NotAMailbox extends IOException {
    NotAMailbox(String message) {
      super(message);
    }
  }

  /** Delivers {@code bytes} to {@code address}; false when this message was already there. */
  boolean deliver(String address, String messageId, byte[] bytes) throws IOException {
    Path box = mailbox(address);
    for (String sub : new String[] {"tmp", "new", "cur"}) Files.createDirectories(box.resolve(sub));
    String name = "pec." + digest(messageId + "\n" + address) + ".pkibench";
    if (Files.exists(box.resolve("new").resolve(name)) || Files.exists(box.resolve("cur").resolve(name + ":2,"))
        || Files.exists(box.resolve("cur").resolve(name))) {
      return false;
    }
    durable.write(box.resolve("tmp").resolve(name), box.resolve("new").resolve(name), bytes);
    return true;
  }

  /**
   * The address's Maildir, checked twice: the address is one RCPT would take, and the path, once
   * resolved, is a direct child of the root (the second line, should a check upstream ever miss).
   */
  Path mailbox(String address) throws NotAMailbox {
    String folded;
    try {
      folded = MailAddress.parse(address).toString();
    } catch (IllegalArgumentException e) {
      throw new NotAMailbox("<" + MailAddress.printable(address) + "> names no mailbox: " + e.getMessage());
    }
    Path base = root.toAbsolutePath().normalize();
    Path box = base.resolve(folded).normalize();
    if (!box.getParent().equals(base)) throw new NotAMailbox("<" + MailAddress.printable(address) + "> resolves outside " + base);
    return box;
  }

  /** 24 hex digits of SHA-256: the spool's job ids and the Maildir file names. */
  static String digest(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
