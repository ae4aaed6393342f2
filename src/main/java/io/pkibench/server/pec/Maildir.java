package io.pkibench.server.pec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The users' mailboxes, one Maildir per address under a root ({@code
 * ROOT/user@domain/{tmp,new,cur}}), the format any Maildir reader opens. A message's file name
 * comes from its Message-ID and the mailbox, so delivering the same message twice (a job redone
 * after a crash) leaves one file.
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

  /**
   * Delivers {@code bytes} to {@code address}, unforced (tmp, then renamed into new/, as every
   * Maildir writer does); false when this message was already there whole. What makes it durable is
   * the caller's record of it in the spool's journal, forced with the job's next record, and {@link
   * #restore} from that record after a power loss; then {@link #sync}. A copy of another size (cut
   * short by a power loss whose record was lost with it, so its job is redone) is replaced: still
   * one copy, whole.
   */
  boolean deliver(String address, String messageId, byte[] bytes) throws IOException {
    Path box = mailbox(address);
    String name = fileName(address, messageId);
    Path found = copy(box, name, false);
    return write(box, name, found, bytes);
  }

  /**
   * Rewrites a delivery the journal recorded when its file is missing or not of its size (a power
   * loss took what was not on the disk yet); true when it did. A reader may have moved it to cur/
   * with flags: that copy counts.
   */
  boolean restore(String address, String messageId, byte[] bytes) throws IOException {
    Path box = mailbox(address);
    String name = fileName(address, messageId);
    return write(box, name, copy(box, name, true), bytes);
  }

  /** Puts every delivery made so far on the disk, in one flush of the mailboxes' file system. */
  void sync() throws IOException {
    Files.createDirectories(root);
    durable.syncFileSystem(root);
  }

  private boolean write(Path box, String name, Path found, byte[] bytes) throws IOException {
    if (found != null && Files.size(found) == bytes.length) return false;
    for (String sub : new String[] {"tmp", "new", "cur"}) Files.createDirectories(box.resolve(sub));
    durable.writeUnforced(
        box.resolve("tmp").resolve(name),
        found != null ? found : box.resolve("new").resolve(name),
        bytes);
    return true;
  }

  /**
   * The message's file in the mailbox, or null; {@code anyFlags} also looks for {@code
   * cur/NAME:2,FLAGS} (a directory listing).
   */
  private static Path copy(Path box, String name, boolean anyFlags) throws IOException {
    for (Path p :
        new Path[] {
          box.resolve("new").resolve(name),
          box.resolve("cur").resolve(name + ":2,"),
          box.resolve("cur").resolve(name)
        }) {
      if (Files.exists(p)) return p;
    }
    if (!anyFlags || !Files.isDirectory(box.resolve("cur"))) return null;
    try (DirectoryStream<Path> flagged =
        Files.newDirectoryStream(box.resolve("cur"), name + ":2,*")) {
      for (Path p : flagged) return p;
    }
    return null;
  }

  private static String fileName(String address, String messageId) {
    return "pec." + digest(messageId + "\n" + address) + ".pkibench";
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
      throw new NotAMailbox(
          "<" + MailAddress.printable(address) + "> names no mailbox: " + e.getMessage());
    }
    Path base = root.toAbsolutePath().normalize();
    Path box = base.resolve(folded).normalize();
    if (!box.getParent().equals(base))
      throw new NotAMailbox("<" + MailAddress.printable(address) + "> resolves outside " + base);
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
