package io.pkibench.formats.pec;

import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;

/**
 * How a user logs in to its provider to submit (RFC 6109: users submit to their own provider,
 * authenticated): SMTP AUTH PLAIN, only after STARTTLS, trusting {@code tls}. The password never
 * reaches a flag, a log line or {@code toString}.
 */
public record PecLogin(String user, Secret password, SSLContext tls) {
  public PecLogin {
    user = user.toLowerCase(Locale.ROOT);
  }

  /**
   * The test user {@code address}'s login: its password derived from the test PKI, trusting the
   * PKI's root.
   */
  public static PecLogin testUser(TestPki pki, String address) throws GeneralSecurityException {
    return new PecLogin(
        address, testPassword(pki, address), TlsContexts.trusting(pki.certificate("root-ca")));
  }

  /**
   * A test user's password: HMAC-SHA256 under the test PKI's keystore password of the folded
   * address, so that the providers and the users' clients of one PKI agree on it without a file of
   * passwords, and another PKI's users cannot log in.
   */
  public static Secret testPassword(TestPki pki, String address) {
    Secret keystore = pki.keystorePassword();
    char[] chars = keystore.chars();
    ByteBuffer key = StandardCharsets.UTF_8.encode(CharBuffer.wrap(chars));
    byte[] keyBytes = new byte[key.remaining()];
    key.get(keyBytes);
    Arrays.fill(chars, '\0');
    keystore.wipe();
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(keyBytes, "HmacSHA256"));
      byte[] d =
          mac.doFinal(
              ("pkibench pec login\n" + address.toLowerCase(Locale.ROOT))
                  .getBytes(StandardCharsets.UTF_8));
      return Secret.of(
          Base64.getUrlEncoder()
              .withoutPadding()
              .encodeToString(Arrays.copyOf(d, 18))
              .toCharArray());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    } finally {
      Arrays.fill(keyBytes, (byte) 0);
    }
  }

  @Override
  public String toString() {
    return "PecLogin[" + user + ", password ****]";
  }
}
