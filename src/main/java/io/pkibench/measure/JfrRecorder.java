package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A JDK Flight Recorder recording of one JVM taking part in a run: this one (the client) or another by its pid.
 * {@link #start} begins sampling; {@link #stopInto} writes what was recorded to a {@code .jfr} file and ends it.
 */
public interface JfrRecorder {
  /** Which side this is, as the report labels it: "client (this JVM)", "service pid 4242". */
  String side();

  void start() throws IOException;

  /** Writes the recording to {@code jfrFile} (absolute: another JVM writes it) and stops recording. */
  void stopInto(Path jfrFile) throws IOException;
}
