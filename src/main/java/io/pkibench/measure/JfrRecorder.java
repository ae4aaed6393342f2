package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A JDK Flight Recorder recording of one JVM taking part in a run: this one (the client) or another
 * by its pid. {@link #start} begins sampling; {@link #stopInto} writes what was recorded to a
 * {@code .jfr} file and ends it.
 */
public interface JfrRecorder {
  /**
   * The events of JFR's "profile" settings that copy what a user keeps secrets in, left out of
   * every recording pkibench makes: the environment (PKIBENCH_PKCS11_PIN, tokens), system
   * properties (-Djavax.net.ssl.keyStorePassword=), the JVM's arguments (its -D options and the
   * program's own), and the command lines of the machine's processes and of those the JVM starts. A
   * name a JDK does not know (jdk.ProcessStart before JDK 23) only draws a warning.
   */
  List<String> SECRET_BEARING_EVENTS =
      List.of(
          "jdk.InitialEnvironmentVariable",
          "jdk.InitialSystemProperty",
          "jdk.InitialSecurityProperty",
          "jdk.JVMInformation",
          "jdk.SystemProcess",
          "jdk.ProcessStart");

  /**
   * {@link #SECRET_BEARING_EVENTS} switched off, as JFR.start and -XX:StartFlightRecording take it:
   * {@code NAME#enabled=false} each.
   */
  static List<String> secretBearingEventsOff() {
    return SECRET_BEARING_EVENTS.stream().map(e -> e + "#enabled=false").toList();
  }

  /** Which side this is, as the report labels it: "client (this JVM)", "service pid 4242". */
  String side();

  void start() throws IOException;

  /**
   * Writes the recording to {@code jfrFile}, an empty owner-only file made for it (absolute:
   * another JVM may write it; writing into it keeps its mode), and stops recording.
   */
  void stopInto(Path jfrFile) throws IOException;
}
