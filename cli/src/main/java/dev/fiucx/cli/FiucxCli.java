package dev.fiucx.cli;

import dev.fiucx.Fabric;
import dev.fiucx.perf.Bench;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code fiucx} command line; {@code ./fiucx} at the project root builds and runs it. */
@Command(
    name = "fiucx",
    mixinStandardHelpOptions = true,
    versionProvider = FiucxCli.Version.class,
    description = "libfabric fi_atomic(3) for the JVM, on UCX")
public final class FiucxCli {
  /** fiucx's version (core's), the same one the HTML conformance report names. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"fiucx " + dev.fiucx.Fabric.version()};
    }
  }

  private FiucxCli() {}

  /**
   * Runs the command line and exits with its status.
   *
   * @param args a command and its arguments, e.g. {@code info --provider ucx}
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line as {@code ./fiucx} runs it: bench reports a bad option in one line, and a
   * command whose provider is unknown or unavailable here says why in one line and exits 2 ({@link
   * ProviderGate}).
   *
   * @return a new command line, every subcommand in it
   */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new FiucxCli());
    // added here, not listed in @Command: bench's command is perf's, reached through Bench alone;
    // this is the order of the usage's list
    cli.addSubcommand(new InfoCommand());
    cli.addSubcommand(new ReplayCommand());
    cli.addSubcommand(new DemoCommand());
    cli.addSubcommand(new ConformanceCommand());
    cli.addSubcommand(Bench.commandLine());
    cli.addSubcommand(new ServeCommand());
    cli.addSubcommand(new JmhCommand());
    cli.addSubcommand(new SoakCommand());
    CommandLine.IParameterExceptionHandler usual = cli.getParameterExceptionHandler();
    cli.setParameterExceptionHandler(
        (e, args) ->
            Bench.isBench(e.getCommandLine())
                ? Bench.oneLineError(e, args)
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
    String provider = ProviderGate.providerOf(last.commandSpec().commandLine());
    String why = provider == null ? null : ProviderGate.whyNot(provider, Fabric.providers());
    return why == null
        ? new CommandLine.RunLast().execute(parsed)
        : ProviderGate.refuse(last.commandSpec().commandLine(), why);
  }
}
