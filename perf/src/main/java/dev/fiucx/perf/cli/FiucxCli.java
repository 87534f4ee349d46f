package dev.fiucx.perf.cli;

import dev.fiucx.conformance.report.ConformanceReport;
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
      JmhCommand.class
    })
public final class FiucxCli {
  /** The project version, the same one the HTML conformance report names. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"fiucx " + ConformanceReport.fiucxVersion()};
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new FiucxCli()).execute(args));
  }
}
