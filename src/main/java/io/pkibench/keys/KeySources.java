package io.pkibench.keys;

import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.function.Supplier;

/** Opens the key source a {@code --keys} value names: {@code software[:accp|jdk|bc]} or {@code pkcs11:CONFIG}. */
public final class KeySources {
  public static final String PIN_ENV = "PKIBENCH_PKCS11_PIN";

  private KeySources() {}

  /** Checks the syntax only (no file is opened): null when fine, else the problem naming {@code --keys}. */
  public static String problem(String spec) {
    if (spec.equals("software")) return null;
    if (spec.startsWith("software:")) {
      try {
        ProviderChoice.parse(spec.substring("software:".length()));
        return null;
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
    }
    if (spec.startsWith("pkcs11:") && spec.length() > "pkcs11:".length()) return null;
    return "--keys " + spec + ": unknown key source; use software, software:accp|jdk|bc or pkcs11:CONFIG";
  }

  public static KeySource open(String spec, Supplier<TestPki> pki, Path pinFile, Map<String, String> env)
      throws GeneralSecurityException, IOException {
    String problem = problem(spec);
    if (problem != null) throw new IllegalArgumentException(problem);
    if (spec.equals("software")) return new SoftwareKeySource(pki, ProviderChoice.best());
    if (spec.startsWith("software:")) {
      return new SoftwareKeySource(pki, ProviderChoice.parse(spec.substring("software:".length())));
    }
    Secret pin = Secret.from(pinFile, env, PIN_ENV, "the PKCS#11 PIN");
    try {
      return new Pkcs11KeySource(Path.of(spec.substring("pkcs11:".length())), pin);
    } finally {
      pin.wipe();
    }
  }
}
