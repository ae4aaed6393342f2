package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No silent substitution: the tests' keys sign through the provider asked for, never through a
 * fallback.
 */
class TestProviderTest {
  @Test
  void testKeys_signThroughTheProviderAsked_accpUnlessToldOtherwise(@TempDir Path dir)
      throws Exception {
    String asked = System.getProperty("pkibench.testProvider", ProviderChoice.ACCP.flag);
    assertEquals(
        asked,
        TestProvider.chosen().flag,
        "the provider asked for, or the test fails saying why it does not load");
    SigningKey key = TestKeys.in(dir).keys.key("signer-rsa2048-1");
    String expected =
        Map.of("accp", "AmazonCorrettoCryptoProvider", "jdk", "SunRsaSign", "bc", "BC").get(asked);
    assertEquals(
        expected,
        key.provider().getName(),
        "an RSA signer of the tests' key source signs through " + asked);
  }
}
