package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.pkibench.keys.ProviderChoice;

/**
 * The provider the tests' software keys run through: ACCP, the product's default ({@code --keys
 * software} where it loads), unless {@code -Dpkibench.testProvider=jdk} (or {@code bc}) asks for
 * another. Never a silent fallback: a test that asks for ACCP where it does not load fails saying
 * why, so the ACCP path cannot go untested while everything passes.
 */
public final class TestProvider {
  private TestProvider() {}

  public static ProviderChoice chosen() {
    ProviderChoice choice =
        ProviderChoice.parse(System.getProperty("pkibench.testProvider", ProviderChoice.ACCP.flag));
    return choice == ProviderChoice.ACCP ? requireAccp() : choice;
  }

  /**
   * ACCP, or the test fails naming why it does not load and how to run the suite on another
   * provider.
   */
  public static ProviderChoice requireAccp() {
    Throwable failure = ProviderChoice.accpLoadFailure();
    if (failure != null) {
      fail(
          "this test runs on Amazon Corretto Crypto Provider, which does not load here ("
              + failure
              + "); "
              + "to test another provider instead, say so: -Dpkibench.testProvider=jdk");
    }
    return ProviderChoice.ACCP;
  }
}
