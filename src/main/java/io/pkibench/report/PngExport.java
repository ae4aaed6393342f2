package io.pkibench.report;

import io.pkibench.files.OutputFiles;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.batik.transcoder.TranscoderException;
import org.apache.batik.transcoder.TranscoderInput;
import org.apache.batik.transcoder.TranscoderOutput;
import org.apache.batik.transcoder.image.PNGTranscoder;

/**
 * Each chart as a PNG file named after its id, rendered from the very SVG the report embeds (Apache
 * Batik).
 */
public final class PngExport {
  private PngExport() {}

  public static List<Path> write(List<? extends Chart> charts, Path dir) throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    for (Chart chart : charts) {
      Path file = dir.resolve(chart.id() + ".png");
      // owner-only, written whole and renamed into place: a link at its path is replaced, not
      // followed
      OutputFiles.replace(
          file,
          out -> {
            try {
              new PNGTranscoder()
                  .transcode(
                      new TranscoderInput(new StringReader(chart.render())),
                      new TranscoderOutput(out));
            } catch (TranscoderException e) {
              throw new IOException(
                  "cannot render chart " + chart.id() + " as PNG: " + e.getMessage(), e);
            }
          });
      written.add(file);
    }
    return written;
  }
}
