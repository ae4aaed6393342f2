package io.pkibench.study;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Every study pkibench can rerun, by name, with its default options. */
public record StudyCatalog(List<Study> studies) {
  public StudyCatalog {
    studies = List.copyOf(studies);
  }

  public static StudyCatalog builtIn() {
    return new StudyCatalog(
        List.of(
            new RestPkiStudy(false),
            new PixStudy(),
            new RsfnStudy(),
            new PecStudy(PecStudy.Config.defaults(Path.of("pec-study"), null)),
            new SslStudy(List.of("jsse", "openssl")),
            new PqcStudy(),
            new CaStudy()));
  }

  public Optional<Study> find(String name) {
    return studies.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  public List<String> names() {
    return studies.stream().map(Study::name).toList();
  }
}
