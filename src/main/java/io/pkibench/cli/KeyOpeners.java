package io.pkibench.cli;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.TestPki;
import io.pkibench.session.RunSession;
import java.nio.file.Path;
import java.security.Provider;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

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
  static List<Provider> providersBeyondInstalled() {
    List<Provider> list = new ArrayList<>();
    if (ProviderChoice.accpLoadFailure() == null) list.add(AmazonCorrettoCryptoProvider.INSTANCE);
    list.add(new BouncyCastleProvider());
    return list;
  }
}
