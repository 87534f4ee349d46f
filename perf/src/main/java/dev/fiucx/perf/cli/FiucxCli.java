package dev.fiucx.perf.cli;

import dev.fiucx.Fabric;
import dev.fiucx.perf.bench.BenchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code fiucx} command line; {@code ./fiucx} at the project root builds and runs it. */
@Command(
    name = "fiucx",
    mixinStandardHelpOptions = true,
    versionProvider = FiucxCli.Version.class,
    description = "libfabric fi_atomic(3) for the JVM, on UCX",
    subcommands = {
      InfoCommand.class,
      ReplayCommand.class,
      DemoCommand.class,
      ConformanceCommand.class,
      BenchCommand.class,
      ServeCommand.class,
      JmhCommand.class,
      SoakCommand.class
    })
public final class FiucxCli {
  /** fiucx's version (core's), the same one the HTML conformance report names. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"fiucx " + dev.fiucx.Fabric.version()};
    }
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line as {@code ./fiucx} runs it: bench reports a bad option in one line, and a
   * command whose provider is unknown or unavailable here says why in one line and exits 2 ({@link
   * ProviderGate}).
   */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new FiucxCli());
    CommandLine.IParameterExceptionHandler usual = cli.getParameterExceptionHandler();
    cli.setParameterExceptionHandler(
        (e, args) ->
            e.getCommandLine().getCommandSpec().userObject() instanceof BenchCommand
                ? BenchCommand.oneLineError(e, args)
                : usual.handleParseException(e, args));
    cli.setExecutionStrategy(FiucxCli::runIfItsProviderOpens);
    CommandLine.IExecutionExceptionHandler usualFailure = cli.getExecutionExceptionHandler();
    cli.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          String why = ProviderGate.whyNot(e);
          return why == null
              ? usualFailure.handleExecutionException(e, command, parsed)
              : ProviderGate.refuse(command, why);
        });
    return cli;
  }

  /**
   * Runs the parsed command as picocli does by default, unless it opens a provider that cannot be
   * opened here: help and version first, as they need no provider.
   */
  private static int runIfItsProviderOpens(CommandLine.ParseResult parsed) {
    Integer help = CommandLine.executeHelpRequest(parsed);
    if (help != null) {
      return help;
    }
    CommandLine.ParseResult last = parsed;
    while (last.hasSubcommand()) {
      last = last.subcommand();
    }
    String provider = ProviderGate.providerOf(last.commandSpec().userObject());
    String why = provider == null ? null : ProviderGate.whyNot(provider, Fabric.providers());
    return why == null
        ? new CommandLine.RunLast().execute(parsed)
        : ProviderGate.refuse(last.commandSpec().commandLine(), why);
  }
}
