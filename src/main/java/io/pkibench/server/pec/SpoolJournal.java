package io.pkibench.server.pec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * One append-only file of records, each framed as its length, its CRC-32C and its bytes. Appends
 * only write; {@link #force} makes every record appended before it durable, one fdatasync for all
 * the callers that ask while another runs (group commit). A provider killed mid-write leaves at
 * most a torn last record: on opening, the records are read back up to the first one whose length
 * or checksum does not hold, and the file is cut there (a record past a torn one was never forced,
 * so never acknowledged). {@link #rewrite} replaces the whole file by a shorter one (compaction),
 * through a rename.
 */
final class SpoolJournal implements AutoCloseable {
  private static final int HEADER_BYTES = 8;

  /**
   * A record longer than this is a damaged length, not a record: no message the provider takes
   * comes near it.
   */
  static final int MAX_RECORD_BYTES = 1 << 30;

  private final Path file;
  private final Durable durable;
  private final GroupCommit commit;
  private volatile FileChannel channel;
  private final long tornBytes;

  /**
   * Opens {@code file} (made when absent), handing each whole record to {@code replay} in order,
   * and cuts a torn tail.
   */
  SpoolJournal(Path file, Durable durable, Consumer<ByteBuffer> replay) throws IOException {
    this.file = file;
    this.durable = durable;
    FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    long good = 0;
    long size = ch.size();
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
    while (size - good >= HEADER_BYTES) {
      header.clear();
      readFully(ch, header, good);
      int length = header.getInt(0);
      int crc = header.getInt(4);
      if (length < 1 || length > MAX_RECORD_BYTES || length > size - good - HEADER_BYTES) break;
      ByteBuffer body = ByteBuffer.allocate(length);
      readFully(ch, body, good + HEADER_BYTES);
      if (crc32c(body.array()) != crc) break;
      replay.accept(body.flip().asReadOnlyBuffer());
      good += HEADER_BYTES + length;
    }
    tornBytes = size - good;
    if (tornBytes > 0) {
      ch.truncate(good);
      durable.forceData(file, ch);
    }
    ch.position(good);
    channel = ch;
    commit = new GroupCommit(() -> durable.forceData(file, channel));
  }

  /**
   * Bytes cut off the end when opened: a torn last record (0 when the file ended on a whole
   * record).
   */
  long tornBytes() {
    return tornBytes;
  }

  /** Appends one record; durable only once a {@link #force} begun after this returns has ended. */
  synchronized void append(byte[] record) throws IOException {
    if (record.length == 0 || record.length > MAX_RECORD_BYTES)
      throw new IllegalArgumentException("a journal record of " + record.length + " bytes");
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + record.length);
    b.putInt(record.length).putInt(crc32c(record)).put(record).flip();
    long start = channel.position();
    try {
      while (b.hasRemaining()) channel.write(b);
    } catch (IOException e) {
      // a record half written on a full disk: cut it, so the records appended after it are not read
      // as torn
      channel.truncate(start);
      channel.position(start);
      throw e;
    }
  }

  /**
   * Returns once every record appended before this call is on the disk, sharing the fdatasync with
   * concurrent callers.
   */
  void force() throws IOException {
    commit.await();
  }

  /**
   * Replaces the journal by {@code records} (the live state, written whole to a new file, forced
   * and renamed over this one). The caller keeps every {@link #append} and {@link #force} out while
   * this runs.
   */
  synchronized void rewrite(List<byte[]> records) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    FileChannel ch =
        FileChannel.open(
            next,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE);
    try {
      for (byte[] record : records) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + record.length);
        b.putInt(record.length).putInt(crc32c(record)).put(record).flip();
        while (b.hasRemaining()) ch.write(b);
      }
      durable.forceData(next, ch);
      Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      durable.forceDirectory(file.getParent());
    } catch (IOException e) {
      ch.close();
      Files.deleteIfExists(next);
      throw e;
    }
    FileChannel old = channel;
    channel = ch;
    old.close();
  }

  long sizeBytes() throws IOException {
    return channel.size();
  }

  @Override
  public synchronized void close() throws IOException {
    channel.close();
  }

  private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
    long pos = at;
    while (b.hasRemaining()) {
      int n = ch.read(b, pos);
      if (n < 0) throw new IOException("the journal ended while read");
      pos += n;
    }
  }

  private static int crc32c(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }
}
