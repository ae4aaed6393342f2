package io.pkibench.server.pec;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The records of the spool's journal ({@link PecSpool}), as bytes: a type byte, then strings
 * (UTF-8, length first), byte arrays (length first), lists (count first) and numbers, as {@link
 * DataOutputStream} writes them. A journal begins with a {@link #VERSION} record naming {@link
 * #FORMAT}; one written before the format was named begins without it, and reads the same.
 */
final class SpoolRecords {
  /** The journal's format, in its first record; a journal naming another is refused. */
  static final String FORMAT = "pkibench.pec-journal/1";

  static final byte VERSION = 'V';
  static final byte JOB = 'J';
  static final byte COMMIT = 'C';
  static final byte CARRIED = 'K';
  static final byte FAILED = 'F';
  static final byte DONE = 'D';
  static final byte DELIVERED = 'W';
  static final byte SYNCED = 'S';

  private SpoolRecords() {}

  static byte[] versionRecord(String format) throws IOException {
    return new Record(VERSION, 0).string(format).done();
  }

  static byte[] jobRecord(PecSpool.Job job) throws IOException {
    Record r = new Record(JOB, job.bytes().length);
    r.string(job.id())
        .string(job.origin().spoolName())
        .string(job.mailFrom())
        .strings(job.rcpts())
        .bytes(job.bytes());
    return r.done();
  }

  /** A job record's fields, after its type byte. */
  static PecSpool.Job readJob(ByteBuffer r) {
    return new PecSpool.Job(string(r), Origin.parse(string(r)), string(r), strings(r), bytes(r));
  }

  static byte[] commitRecord(String id, Instant at, PecSpool.Item[] items) throws IOException {
    int live = 0;
    long size = 0;
    for (PecSpool.Item it : items) {
      if (it != null) {
        live++;
        size += it.bytes().length;
      }
    }
    Record r = new Record(COMMIT, (int) Math.min(size, SpoolJournal.MAX_RECORD_BYTES));
    r.string(id);
    r.out.writeLong(at.toEpochMilli());
    r.out.writeInt(items.length);
    r.out.writeInt(live);
    for (int n = 0; n < items.length; n++) {
      PecSpool.Item it = items[n];
      if (it == null) continue;
      r.out.writeInt(n);
      r.string(it.route().spoolName())
          .string(it.kind())
          .string(it.envelopeFrom())
          .strings(it.to())
          .string(it.messageId())
          .bytes(it.bytes());
    }
    return r.done();
  }

  /**
   * A commit record's items, after its type byte and job id: an array as long as the job's results,
   * null where one was carried before the record was written (compaction).
   */
  static PecSpool.Item[] readCommitted(String id, ByteBuffer r) {
    Instant at = Instant.ofEpochMilli(r.getLong());
    PecSpool.Item[] items = new PecSpool.Item[r.getInt()];
    int live = r.getInt();
    for (int k = 0; k < live; k++) {
      int n = r.getInt();
      items[n] =
          new PecSpool.Item(
              id + "/" + n,
              Route.parse(string(r)),
              string(r),
              string(r),
              strings(r),
              string(r),
              bytes(r),
              at);
    }
    return items;
  }

  static byte[] carriedRecord(String id, int n) throws IOException {
    Record r = new Record(CARRIED, 0);
    r.string(id);
    r.out.writeInt(n);
    return r.done();
  }

  static byte[] deliveredRecord(
      long seq, String job, String address, String messageId, byte[] bytes) throws IOException {
    Record r = new Record(DELIVERED, bytes.length);
    r.out.writeLong(seq);
    return r.string(job).string(address).string(messageId).bytes(bytes).done();
  }

  static byte[] syncedRecord(long upTo) throws IOException {
    Record r = new Record(SYNCED, 0);
    r.out.writeLong(upTo);
    return r.done();
  }

  static byte[] idRecord(byte type, String id) throws IOException {
    return new Record(type, 0).string(id).done();
  }

  static byte[] doneRecord(List<String> ids) throws IOException {
    return new Record(DONE, ids.size() * 30).strings(ids).done();
  }

  /** A record being written: its type, then its fields. */
  private static final class Record {
    final ByteArrayOutputStream bytes;
    final DataOutputStream out;

    Record(byte type, int payloadBytes) throws IOException {
      bytes = new ByteArrayOutputStream(256 + payloadBytes);
      out = new DataOutputStream(bytes);
      out.writeByte(type);
    }

    Record string(String s) throws IOException {
      return bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    Record strings(List<String> list) throws IOException {
      out.writeInt(list.size());
      for (String s : list) string(s);
      return this;
    }

    Record bytes(byte[] b) throws IOException {
      out.writeInt(b.length);
      out.write(b);
      return this;
    }

    byte[] done() {
      return bytes.toByteArray();
    }
  }

  static String string(ByteBuffer r) {
    return new String(bytes(r), StandardCharsets.UTF_8);
  }

  static List<String> strings(ByteBuffer r) {
    int n = r.getInt();
    if (n < 0 || n > r.remaining()) throw new IllegalArgumentException("a list of " + n);
    List<String> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) list.add(string(r));
    return list;
  }

  static byte[] bytes(ByteBuffer r) {
    int n = r.getInt();
    if (n < 0 || n > r.remaining())
      throw new IllegalArgumentException("a field of " + n + " bytes");
    byte[] b = new byte[n];
    r.get(b);
    return b;
  }
}
