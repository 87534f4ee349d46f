package dev.fiucx.perf;

import dev.fiucx.perf.bench.BenchCommand;
import dev.fiucx.perf.bench.PerftestRunner;
import picocli.CommandLine;

/**
 * bench as the command line mounts it: its command, its way of reporting a bad option, the provider
 * it opens and whether {@code ucx_perftest} is here to race. The command line ({@code
 * dev.fiucx.cli}) reaches bench through this class alone; bench's own package stays closed to it.
 */
public final class Bench {
  /** The provider bench opens in every role: initiator, target process and {@code --server}. */
  public static final String PROVIDER = "ucx";

  private Bench() {}

  /**
   * A new {@code bench} command, to run alone or to add as a subcommand: a bad option or value is
   * reported in one line with exit status 2 ({@link #oneLineError}).
   *
   * @return the command, named {@code bench}
   */
  public static CommandLine commandLine() {
    return BenchCommand.commandLine();
  }

  /**
   * Whether {@code command} is bench's, so that a parent command line can report its parse errors
   * as bench does ({@link #oneLineError}).
   *
   * @param command a command of a command line
   * @return true when it is a bench command
   */
  public static boolean isBench(CommandLine command) {
    return command.getCommandSpec().userObject() instanceof BenchCommand;
  }

  /**
   * Reports a bad option or value of bench in one line on the command's stderr, picocli's own
   * errors included, as scripts read it.
   *
   * @param e what picocli refused
   * @param args the arguments it was given
   * @return 2, bench's exit status for a bad request
   */
  public static int oneLineError(CommandLine.ParameterException e, String[] args) {
    return BenchCommand.oneLineError(e, args);
  }

  /**
   * Whether {@code ucx_perftest} is on the PATH, so that {@code bench --vs-ucx-perftest} can run
   * here.
   *
   * @return true when it is
   */
  public static boolean ucxPerftestFound() {
    return PerftestRunner.find() != null;
  }
}
