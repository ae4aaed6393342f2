package io.pkibench.keys;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where p11-kit's client module ({@code p11-kit-client.so}) finds its {@code p11-kit server}: a
 * Unix socket, written {@code unix:path=/run/…} as p11-kit writes it. The module reads it from
 * {@code P11_KIT_SERVER_ADDRESS} in the process's environment when it loads, so it must be there
 * before the JVM starts; without it p11-kit falls back to {@code $XDG_RUNTIME_DIR/p11-kit/pkcs11},
 * where its systemd user socket listens. Across hosts the socket is forwarded (e.g. {@code ssh
 * -L}), so a Unix socket is the only form taken here.
 */
public record P11KitAddress(Path socket) {
  public static final String ENV = "P11_KIT_SERVER_ADDRESS";

  /** The file name SunPKCS11 configs give as {@code library} to reach a p11-kit server. */
  public static final String CLIENT_LIBRARY = "p11-kit-client.so";

  private static final String UNIX = "unix:path=";
  private static final Pattern LIBRARY =
      Pattern.compile("(?m)^\\s*library\\s*=\\s*\"?([^\"\\r\\n]*?)\"?\\s*$");

  /** {@code unix:path=/absolute/path}; anything else is refused, naming {@code what}. */
  public static P11KitAddress parse(String address, String what) {
    if (!address.startsWith(UNIX) || !Path.of(address.substring(UNIX.length())).isAbsolute()) {
      throw new IllegalArgumentException(
          what
              + ": '"
              + address
              + "' is not a p11-kit server address; give unix:path=/absolute/socket, as 'p11-kit"
              + " server' prints it (across hosts, forward the socket with ssh -L)");
    }
    return new P11KitAddress(Path.of(address.substring(UNIX.length())));
  }

  /**
   * The address p11-kit-client.so will use in a process started with {@code env}: its {@code
   * P11_KIT_SERVER_ADDRESS}, else p11-kit's default under {@code XDG_RUNTIME_DIR}; empty when
   * neither is set.
   */
  public static Optional<P11KitAddress> of(Map<String, String> env) {
    String given = env.get(ENV);
    if (given != null && !given.isBlank()) return Optional.of(parse(given, ENV));
    String runtime = env.get("XDG_RUNTIME_DIR");
    if (runtime == null || runtime.isBlank()) return Optional.empty();
    return Optional.of(new P11KitAddress(Path.of(runtime, "p11-kit", "pkcs11")));
  }

  /** Whether the SunPKCS11 config file names p11-kit's client module as its library. */
  public static boolean isClientConfig(Path config) throws IOException {
    Matcher m = LIBRARY.matcher(Files.readString(config));
    return m.find() && Path.of(m.group(1).strip()).getFileName().toString().equals(CLIENT_LIBRARY);
  }

  @Override
  public String toString() {
    return UNIX + socket;
  }
}
