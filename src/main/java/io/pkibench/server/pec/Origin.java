package io.pkibench.server.pec;

/**
 * How a message reached the provider: submitted by one of our users (the access point), or arriving
 * from anyone else (the incoming point). The spool's journal holds it as {@link #spoolName()}.
 */
enum Origin {
  SUBMISSION("submission"),
  INCOMING("incoming");

  private final String spoolName;

  Origin(String spoolName) {
    this.spoolName = spoolName;
  }

  /** The word the spool's journal and a job's id hold for this origin. */
  String spoolName() {
    return spoolName;
  }

  static Origin parse(String name) {
    for (Origin o : values()) if (o.spoolName.equals(name)) return o;
    throw new IllegalArgumentException("an origin this version does not know: " + name);
  }
}
