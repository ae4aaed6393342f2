package io.pkibench.workload.api;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The local addresses a socket workload's connections leave from ({@code --source-addresses},
 * {@code -p source-addresses}): a range {@code 127.0.0.1-127.0.0.16} or a list {@code
 * 127.0.0.1,127.0.0.2}, dealt round-robin to the workers; or {@code auto}: the kernel's choice,
 * until a loopback run needs more connections than one address has ephemeral ports, when worker
 * {@code w} leaves from the {@code w / ports}-th address of 127.0.0.0/8 after 127.0.0.1. One
 * address gives one port range towards one server address; sixteen give sixteen.
 */
public final class SourceAddresses {
  /** The parameter every socket workload takes, and its default. */
  public static final String PARAM = "source-addresses";

  public static final String AUTO = "auto";

  /**
   * The most addresses a range may span: a /16, far beyond the open-file limit of any one process.
   */
  public static final int MAX_ADDRESSES = 65_536;

  private static final int LOOPBACK_FIRST = 0x7f000001;

  private final int[] addresses; // IPv4, as ints; empty: auto

  private SourceAddresses(int[] addresses) {
    this.addresses = addresses;
  }

  public static ParamSpec spec() {
    return ParamSpec.free(
        PARAM,
        AUTO,
        "local addresses the connections leave from, round-robin: a range 127.0.0.1-127.0.0.16 or a list"
            + " a,b (auto: spread over 127.0.0.0/8 by itself once a loopback run needs more connections than one address has ports)");
  }

  /**
   * Reads {@code text}; a malformed one is an {@link IllegalArgumentException} saying what to
   * write.
   */
  public static SourceAddresses parse(String text) {
    String t = text.strip();
    if (t.isEmpty() || t.equals(AUTO)) return new SourceAddresses(new int[0]);
    int dash = t.indexOf('-');
    if (dash >= 0) {
      long first = ipv4(t.substring(0, dash)), last = ipv4(t.substring(dash + 1));
      if (last < first)
        throw new IllegalArgumentException(
            t + ": the range ends before it starts; write FIRST-LAST, e.g. 127.0.0.1-127.0.0.16");
      if (last - first + 1 > MAX_ADDRESSES) {
        throw new IllegalArgumentException(
            t
                + ": "
                + (last - first + 1)
                + " addresses; a range may span at most "
                + MAX_ADDRESSES);
      }
      int[] all = new int[(int) (last - first + 1)];
      for (int i = 0; i < all.length; i++) all[i] = (int) (first + i);
      return new SourceAddresses(all);
    }
    String[] parts = t.split(",");
    int[] all = new int[parts.length];
    for (int i = 0; i < parts.length; i++) all[i] = (int) ipv4(parts[i]);
    return new SourceAddresses(all);
  }

  private static long ipv4(String text) {
    String[] octets = text.strip().split("\\.", -1);
    if (octets.length != 4)
      throw new IllegalArgumentException(
          "'" + text.strip() + "' is not an IPv4 address such as 127.0.0.2");
    long value = 0;
    for (String o : octets) {
      int n;
      try {
        n = o.length() > 3 || o.isEmpty() ? -1 : Integer.parseInt(o);
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0 || n > 255)
        throw new IllegalArgumentException(
            "'" + text.strip() + "' is not an IPv4 address such as 127.0.0.2");
      value = value << 8 | n;
    }
    return value;
  }

  /**
   * Every problem of {@code text} for connections to {@code targetHost} (null: unknown yet), each
   * naming {@code flag}: a malformed range or list, a source off loopback for a loopback target
   * (the packets could not come back) or on loopback for another target.
   */
  public static List<String> problems(String flag, String text, String targetHost) {
    List<String> problems = new ArrayList<>();
    SourceAddresses parsed;
    try {
      parsed = parse(text);
    } catch (IllegalArgumentException e) {
      return List.of(flag + " " + text + ": " + e.getMessage());
    }
    if (parsed.isAuto() || targetHost == null) return problems;
    boolean loopbackTarget = isLoopback(targetHost);
    for (int a : parsed.addresses) {
      boolean loopback = (a >>> 24) == 127;
      if (loopbackTarget && !loopback) {
        problems.add(
            flag
                + " "
                + text
                + ": "
                + dotted(a)
                + " is not on loopback and the target "
                + targetHost
                + " is; give addresses of 127.0.0.0/8, e.g. 127.0.0.1-127.0.0.16");
        break;
      }
      if (!loopbackTarget && loopback) {
        problems.add(
            flag
                + " "
                + text
                + ": "
                + dotted(a)
                + " is on loopback and the target "
                + targetHost
                + " is not: its answers could not come back; leave "
                + flag
                + " out");
        break;
      }
    }
    return problems;
  }

  /**
   * Whether {@code host} (a literal or a name) is a loopback address; a name that does not resolve
   * is not.
   */
  public static boolean isLoopback(String host) {
    String h =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    try {
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  public boolean isAuto() {
    return addresses.length == 0;
  }

  /**
   * How many addresses the connections may leave from towards {@code targetHost}: auto on loopback,
   * all of 127.0.0.0/8 but .0.
   */
  public long count(String targetHost) {
    if (!isAuto()) return addresses.length;
    return targetHost != null && isLoopback(targetHost) ? (1L << 24) - 2 : 1;
  }

  /**
   * The address worker {@code worker} binds to before it connects, or null for the kernel's choice:
   * round-robin over the addresses given; auto, 127.0.0.1 + {@code worker / portsPerAddress} once
   * past the first address's ports (loopback only).
   */
  public InetAddress forWorker(int worker, int portsPerAddress, boolean loopbackTarget) {
    int a;
    if (!isAuto()) {
      a = addresses[Math.floorMod(worker, addresses.length)];
    } else {
      int block = worker / Math.max(1, portsPerAddress);
      if (block == 0 || !loopbackTarget) return null;
      a = LOOPBACK_FIRST + block;
    }
    try {
      return InetAddress.getByAddress(
          new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a});
    } catch (UnknownHostException e) {
      throw new IllegalStateException("four bytes are always an address", e);
    }
  }

  private static String dotted(int a) {
    return (a >>> 24) + "." + ((a >>> 16) & 0xff) + "." + ((a >>> 8) & 0xff) + "." + (a & 0xff);
  }

  @Override
  public String toString() {
    return isAuto()
        ? AUTO
        : addresses.length == 1
            ? dotted(addresses[0])
            : dotted(addresses[0])
                + "…"
                + dotted(addresses[addresses.length - 1])
                + " ("
                + addresses.length
                + ")";
  }
}
