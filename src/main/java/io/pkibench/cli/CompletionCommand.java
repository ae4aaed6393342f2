package io.pkibench.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "completion",
    header = "Prints the shell completion script for bash or zsh.",
    description = {
      "Prints the script that completes pkibench's commands, flags and file names as you type;",
      "the release archive ships the same scripts under completion/."
    },
    footer = {
      "",
      "Examples:",
      "  source <(pkibench completion bash)          # this shell; add the line to ~/.bashrc to keep it",
      "  source <(pkibench completion zsh)           # zsh: the same, in ~/.zshrc"
    })
final class CompletionCommand implements Callable<Integer> {
  enum Shell {
    bash,
    zsh
  }

  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "SHELL", description = "bash or zsh")
  Shell shell;

  @Override
  public Integer call() {
    parent.context.out().print(script(spec.root().commandLine().getCommandSpec(), shell));
    return ExitCodes.OK;
  }

  /**
   * picocli writes one script for both shells: under zsh it loads zsh's bash-completion layer
   * itself. The zsh flavour only says so in its first lines, for a reader who opens the file.
   */
  static String script(CommandSpec root, Shell shell) {
    String bash = AutoComplete.bash("pkibench", root.commandLine());
    return switch (shell) {
      case bash -> bash;
      case zsh ->
          "# pkibench completion for zsh: source it from ~/.zshrc (it loads zsh's bashcompinit)\n"
              + bash;
    };
  }
}
