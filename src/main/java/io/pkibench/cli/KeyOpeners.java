package io.pkibench.cli;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.TestPki;
import io.pkibench.session.RunSession;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The key opener of the command line: the test PKI from --pki (created on first use), the PIN from
 * --pin-file or the environment.
 */
final class KeyOpeners {
  private KeyOpeners() {}

  static RunSession.KeyOpener of(CliContext ctx, Path pkiDir, Path pinFile, Consumer<String> log) {
    Path pin = pinFile == null ? null : ctx.resolve(pinFile);
    return spec ->
        KeySources.open(
            spec,
            () -> TestPki.openOrInit(pkiDir, ctx.clock(), log::accept),
            pin,
            ctx.env(),
            ctx.clock(),
            log);
  }

  /**
   * Providers the key sources use that are not installed globally (ACCP when it loads,
   * BouncyCastle): the result records them.
   */
  static java.util.List<java.security.Provider> providersBeyondInstalled() {
    java.util.List<java.security.Provider> list = new java.util.ArrayList<>();
    if (ProviderChoice.accpLoadFailure() == null)
      list.add(com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider.INSTANCE);
    list.add(new org.bouncycastle.jce.provider.BouncyCastleProvider());
    return list;
  }
}
