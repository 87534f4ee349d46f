package dev.fiucx.conformance.remote;

import java.util.ArrayList;
import java.util.List;

/** The command that runs a class's main in a new JVM like this one: same Java, same class path. */
public final class JavaCommand {
  private JavaCommand() {}

  /**
   * @param prefix what to run the JVM under (e.g. {@code ip netns exec ns}), or empty
   */
  public static List<String> of(List<String> prefix, Class<?> main, String... args) {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Starts it with stdout and stderr inherited; UCX's log goes to stderr. */
  public static ProcessBuilder inheritingIo(List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().put("UCX_LOG_FILE", "stderr");
    return builder;
  }
}
