package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/** Records this JVM with the JDK's "profile" settings (Java frames sampled every 10 ms per running thread). */
public final class ThisJvmRecorder implements JfrRecorder {
  private Recording recording;

  @Override
  public String side() {
    return "client (this JVM)";
  }

  @Override
  public synchronized void start() throws IOException {
    try {
      recording = new Recording(Configuration.getConfiguration("profile"));
    } catch (ParseException e) {
      throw new IOException("the JDK's JFR 'profile' settings cannot be read: " + e.getMessage(), e);
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
