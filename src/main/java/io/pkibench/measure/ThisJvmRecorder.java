package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashMap;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * Records this JVM with the JDK's "profile" settings (Java frames sampled every 10 ms per running
 * thread), without the events that copy its environment, properties and arguments ({@link
 * JfrRecorder#SECRET_BEARING_EVENTS}).
 */
public final class ThisJvmRecorder implements JfrRecorder {
  private Recording recording;

  @Override
  public String side() {
    return "client (this JVM)";
  }

  @Override
  public synchronized void start() throws IOException {
    try {
      Map<String, String> settings =
          new HashMap<>(Configuration.getConfiguration("profile").getSettings());
      for (String event : SECRET_BEARING_EVENTS) settings.put(event + "#enabled", "false");
      recording = new Recording(settings);
    } catch (ParseException e) {
      throw new IOException(
          "the JDK's JFR 'profile' settings cannot be read: " + e.getMessage(), e);
    }
    recording.setName("pkibench-client"); // not jcmd's name: a --cpu pid may be this very JVM
    recording.start();
  }

  @Override
  public synchronized void stopInto(Path jfrFile) throws IOException {
    if (recording == null) throw new IllegalStateException("not started");
    recording.stop();
    recording.dump(jfrFile);
    recording.close();
    recording = null;
  }
}
