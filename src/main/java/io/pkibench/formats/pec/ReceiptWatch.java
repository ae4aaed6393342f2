package io.pkibench.formats.pec;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Waits for the document a sender's provider answers a message with, as it lands in the sender's
 * Maildir: the delivery receipt (the end of a {@code pec-send} transaction) or a non-acceptance.
 * One thread for every worker, told of new files by the JDK's WatchService (inotify on Linux)
 * rather than by listing directories that grow by thousands of files; a lost event (the queue
 * overflowed) makes it list them once.
 */
public final class ReceiptWatch implements AutoCloseable {
  private final WatchService watch;
  private final Map<WatchKey, Path> directories = new HashMap<>();
  private final Map<String, CompletableFuture<DocumentKind>> pending = new ConcurrentHashMap<>();

  /** Files already looked at; only the watching thread touches it after the constructor. */
  private final Set<Path> seen = new HashSet<>();

  private final Thread thread;
  private volatile boolean closed;

  /**
   * Watches each Maildir's {@code new} directory, made if missing; files already there belong to
   * earlier runs and are ignored.
   */
  public ReceiptWatch(List<Path> newDirectories) throws IOException {
    watch = FileSystems.getDefault().newWatchService();
    try {
      for (Path d : newDirectories) {
        Files.createDirectories(d);
        directories.put(d.register(watch, ENTRY_CREATE), d);
      }
      for (Path d : newDirectories) {
        try (Stream<Path> files = Files.list(d)) {
          files.forEach(seen::add);
        }
      }
    } catch (IOException e) {
      watch.close();
      throw e;
    }
    thread = Thread.ofPlatform().daemon().name("pec-receipt-watch").start(this::loop);
  }

  /**
   * Completes with the kind of the first answer that refers to {@code messageId}: a delivery
   * receipt or a non-acceptance.
   */
  public CompletableFuture<DocumentKind> expect(String messageId) {
    CompletableFuture<DocumentKind> answer = new CompletableFuture<>();
    pending.put(messageId, answer);
    return answer;
  }

  /** No longer waited for (the message was refused, or its wait timed out). */
  public void forget(String messageId) {
    pending.remove(messageId);
  }

  private void loop() {
    try {
      while (!closed) {
        WatchKey key = watch.poll(200, TimeUnit.MILLISECONDS);
        if (key == null) continue;
        Path dir = directories.get(key);
        for (WatchEvent<?> event : key.pollEvents()) {
          if (event.kind() == OVERFLOW) rescan();
          else look(dir.resolve((Path) event.context()));
        }
        key.reset();
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed
    }
  }

  private void rescan() {
    for (Path d : directories.values()) {
      try (Stream<Path> files = Files.list(d)) {
        files.forEach(this::look);
      } catch (IOException e) {
        // the directory went away: nothing more will arrive there
      }
    }
  }

  private void look(Path file) {
    if (!seen.add(file)) return;
    Map<String, String> headers;
    try {
      headers = MailHeaders.read(file);
    } catch (IOException e) {
      return; // moved on by a mail reader before we read it: not ours to wait for
    }
    String reference = headers.get("x-riferimento-message-id");
    if (reference == null) return;
    DocumentKind kind =
        DocumentKind.of(headers.get("x-ricevuta"), headers.get("x-trasporto")).orElse(null);
    if (kind != DocumentKind.DELIVERY && kind != DocumentKind.NON_ACCEPTANCE) return;
    CompletableFuture<DocumentKind> answer = pending.remove(reference.strip());
    if (answer != null) answer.complete(kind);
  }

  @Override
  public void close() throws IOException {
    closed = true;
    watch.close();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
