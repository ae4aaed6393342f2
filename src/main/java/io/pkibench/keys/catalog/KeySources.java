package io.pkibench.keys.catalog;

import io.pkibench.keys.remote.NodeAddress;
import io.pkibench.keys.remote.RemoteKeySource;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.Pkcs11KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.function.Supplier;

/** Opens the key source a {@code --keys} value names: {@code software[:accp|jdk|bc]}, {@code pkcs11:CONFIG} or {@code remote:HOST:PORT[=WEIGHT],…}. */
public final class KeySources {
  public static final String PIN_ENV = "PKIBENCH_PKCS11_PIN";

  private KeySources() {}

  /**
   * A {@code --keys} list, e.g. {@code software:jdk,software:bc,remote:127.0.0.1:9443=50,127.0.0.1:9444=50}:
   * an item that names no source continues the node list of the {@code remote:} before it.
   */
  public static java.util.List<String> split(String keys) {
    java.util.List<String> specs = new java.util.ArrayList<>();
    for (String item : keys.split(",")) {
      String s = item.strip();
      boolean startsSource = s.equals("software") || s.startsWith("software:") || s.startsWith("pkcs11:") || s.startsWith("remote:");
      if (!startsSource && !specs.isEmpty() && specs.get(specs.size() - 1).startsWith("remote:")) {
        specs.set(specs.size() - 1, specs.get(specs.size() - 1) + "," + s);
      } else {
        specs.add(s);
      }
    }
    return specs;
  }

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
    if (spec.startsWith("remote:")) {
      try {
        NodeAddress.parseAll(spec.substring("remote:".length()));
        return null;
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
    }
    return "--keys " + spec + ": unknown key source; use software, software:accp|jdk|bc, pkcs11:CONFIG or remote:HOST:PORT[=WEIGHT],…";
  }

  /**
   * Opens {@code spec}. A {@code remote:} source authenticates to its nodes with the test PKI's
   * {@code tls-client} key and reports nodes going down and back through {@code log}.
   */
  public static KeySource open(String spec, Supplier<TestPki> pki, Path pinFile, Map<String, String> env, java.time.InstantSource clock,
      java.util.function.Consumer<String> log) throws GeneralSecurityException, IOException {
    String problem = problem(spec);
    if (problem != null) throw new IllegalArgumentException(problem);
    if (spec.startsWith("remote:")) {
      TestPki testPki = pki.get();
      SigningKey client = new SoftwareKeySource(() -> testPki, ProviderChoice.JDK).key("tls-client");
      return new RemoteKeySource(NodeAddress.parseAll(spec.substring("remote:".length())), client,
          testPki.certificate("root-ca"), clock, log);
    }
    if (spec.equals("software")) return new SoftwareKeySource(pki, ProviderChoice.best(), true);
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
