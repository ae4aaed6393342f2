package io.pkibench.server.signer;

import io.pkibench.formats.ades.TwoPhaseCms;
import io.pkibench.formats.ades.TwoPhaseSigner;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.Consumer;

/**
 * What a start of the signing service leaves for its finish, under a token: single use, expiring,
 * the pending work bounded in count and bytes (a start past the bounds is refused with 503). Tokens
 * and login nonces come from one generator.
 */
final class SignerTokens implements AutoCloseable {
  /** What a token stands for until its finish call. */
  record Pending(TwoPhaseSigner.Pending signature, byte[] nonce, TwoPhaseCms.Pending cms) {
    Pending(TwoPhaseSigner.Pending signature, byte[] nonce) {
      this(signature, nonce, null);
    }
  }

  /** What a login's token holds (its nonce and bookkeeping), for the pending work's byte budget. */
  static final long LOGIN_BYTES = 512;

  private final PendingTokens<Pending> pending;

  /**
   * Tokens and login nonces: the JDK's DRBG, seeded once. The default (NativePRNG) mixes
   * /dev/urandom into every call under one process-wide lock: 3% of the service's CPU per CAdES
   * signature, for 16 bytes.
   */
  private final SecureRandom random = drbg();

  private final Consumer<String> log;

  /** {@code log}: where a full pending store is said (the service's log, as it is at the time). */
  SignerTokens(PendingTokens.Limits limits, Consumer<String> log) {
    this.pending = new PendingTokens<>(limits, System::nanoTime);
    this.log = log;
  }

  /** A login's nonce: 32 bytes. */
  byte[] nonce() {
    byte[] nonce = new byte[32];
    random.nextBytes(nonce);
    return nonce;
  }

  String newToken() {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  Pending take(String token) throws Refusal {
    return switch (pending.take(token)) {
      case PendingTokens.Taken.Found<Pending> found -> found.work();
      case PendingTokens.Taken.Unknown<Pending> unknown ->
          throw new Refusal(404, "unknown_token", "token " + token + " is unknown or already used");
      case PendingTokens.Taken.Expired<Pending> expired ->
          throw new Refusal(410, "expired_token", "token " + token + " expired");
    };
  }

  /**
   * Keeps a start's work for its finish, or refuses the start with 503 when the pending work is at
   * its bounds.
   */
  void keep(String token, Pending work, long bytes) throws Refusal {
    if (pending.put(token, work, bytes)) return;
    long refused = pending.refused();
    if (refused == 1 || refused % 1000 == 0) {
      log.accept(
          "pending work full ("
              + pending.size()
              + " tokens, "
              + pending.bytes() / (1024 * 1024)
              + " MB): starts refused with 503, "
              + refused
              + " so far");
    }
    throw new Refusal(
        503,
        "busy",
        "too much unfinished work is waiting for its finish calls; try again later",
        pending.retryAfterSeconds());
  }

  @Override
  public void close() {
    pending.close();
  }

  private static SecureRandom drbg() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      return new SecureRandom(); // every JDK since 9 has DRBG; kept for a provider list that drops
      // it
    }
  }
}
