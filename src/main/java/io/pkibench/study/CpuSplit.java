package io.pkibench.study;

import io.pkibench.measure.CpuSet;
import java.util.List;

/**
 * How a study shares the machine's cores between its services and the load generator. The seeds ran
 * their services and clients on separate machines; here they share one, so a service could never
 * reach 100% of the cores while the client used the rest. Split, each service runs on {@code
 * services} only and this JVM (the client, and any series it forks) on {@code client} only, and a
 * service's utilisation is measured against its own cores. Shared ({@code services == null}):
 * everything runs everywhere, as before.
 */
public record CpuSplit(CpuSet services, CpuSet client) {
  public CpuSplit {
    if ((services == null) != (client == null))
      throw new IllegalArgumentException("a split names both the services' CPUs and the client's");
  }

  public static CpuSplit shared() {
    return new CpuSplit(null, null);
  }

  public boolean isShared() {
    return services == null;
  }

  /**
   * The first half of {@code available} (at least one CPU) to the services, the rest to the client;
   * shared on a single CPU.
   */
  public static CpuSplit defaultFor(CpuSet available) {
    if (available.size() < 2) return shared();
    List<Integer> cpus = available.cpus();
    int half = cpus.size() / 2;
    return new CpuSplit(
        new CpuSet(cpus.subList(0, half)), new CpuSet(cpus.subList(half, cpus.size())));
  }

  /**
   * {@code --service-cpus}: {@code auto} (the default split), {@code shared} (no split), or the
   * services' CPU list (the client gets the rest of {@code available}).
   */
  public static CpuSplit parse(String text, CpuSet available) {
    String t = text.trim();
    if (t.equals("shared")) return shared();
    if (t.equals("auto")) return defaultFor(available);
    CpuSet services;
    try {
      services = CpuSet.parse(t);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--service-cpus: " + e.getMessage() + ", or auto, or shared");
    }
    List<Integer> foreign = services.without(available);
    if (!foreign.isEmpty()) {
      throw new IllegalArgumentException(
          "--service-cpus: CPU "
              + foreign
              + " is not among this process's CPUs ("
              + available
              + "); choose from those");
    }
    List<Integer> rest = available.without(services);
    if (rest.isEmpty()) {
      throw new IllegalArgumentException(
          "--service-cpus "
              + services
              + " leaves no CPU for the client (this process has "
              + available
              + "); leave at least one, or pass --service-cpus shared");
    }
    return new CpuSplit(services, new CpuSet(rest));
  }

  /** A line for the study's notes and log. */
  public String describe() {
    if (isShared()) return "the services and the client share every core (--service-cpus shared)";
    return "the services run on CPU "
        + services
        + " ("
        + cores(services)
        + "), the client on CPU "
        + client
        + " ("
        + cores(client)
        + "); each service's CPU utilisation is measured against its own cores (--service-cpus)";
  }

  private static String cores(CpuSet set) {
    return set.size() == 1 ? "1 core" : set.size() + " cores";
  }
}
