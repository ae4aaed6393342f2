package io.pkibench.cli;

import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Runs a reference service alone, on loopback by default, until stopped (Ctrl-C).",
    subcommands = {
      ServeSigner.class,
      ServeTsa.class,
      ServeCrl.class,
      ServeTlsEcho.class,
      ServeNginx.class,
      ServeKeyServer.class,
      ServePec.class,
      ServeDss.class,
      ServeOpenbaoCommand.class,
      ServePebbleCommand.class
    })
final class ServeCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    // Said from the registered subcommands, so that a service added above is named here too.
    List<String> services =
        spec.subcommands().keySet().stream()
            .filter(name -> !name.equals("help"))
            .map(name -> "serve " + name)
            .toList();
    String last = services.get(services.size() - 1);
    throw new ParameterException(
        spec.commandLine(),
        "name a service: "
            + String.join(", ", services.subList(0, services.size() - 1))
            + " or "
            + last);
  }
}
