package dev.fiucx.perf.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code fiucx} command line; {@code ./fiucx} at the project root builds and runs it. */
@Command(
    name = "fiucx",
    mixinStandardHelpOptions = true,
    version = "fiucx 0.1.0",
    description = "libfabric fi_atomic(3) for the JVM, on UCX",
    subcommands = {
      InfoCommand.class,
      ReplayCommand.class,
      DemoCommand.class,
      ConformanceCommand.class
    })
public final class FiucxCli {
  public static void main(String[] args) {
    System.exit(new CommandLine(new FiucxCli()).execute(args));
  }
}
