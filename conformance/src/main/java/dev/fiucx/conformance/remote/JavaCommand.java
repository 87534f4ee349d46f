package dev.fiucx.conformance.remote;

import java.lang.management.ManagementFactory;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ResolvedModule;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The command that runs a class's main in a new JVM like this one: same Java, same module path and
 * module options (patched test classes, reads, exports, opens, native access), same class path. A
 * class of a named module runs as {@code -m module/class}, so native access granted to modules by
 * name reaches it; a class on the class path runs by its name.
 */
public final class JavaCommand {
  /**
   * The launcher options that shape the module graph, as the JVM reports them ({@code
   * --name=value}, argument files expanded); the child gets every one of them.
   */
  private static final List<String> MODULE_OPTIONS =
      List.of(
          "--module-path=",
          "--upgrade-module-path=",
          "--patch-module=",
          "--add-modules=",
          "--limit-modules=",
          "--add-reads=",
          "--add-exports=",
          "--add-opens=",
          "--enable-native-access=",
          "--illegal-native-access=");

  private static final String NATIVE_ACCESS = "--enable-native-access=";

  private JavaCommand() {}

  /**
   * The command line that runs {@code main} in a JVM like this one.
   *
   * @param prefix what to run the JVM under (e.g. {@code ip netns exec ns}), or empty
   * @param main the class whose {@code main} runs
   * @param args its arguments
   * @return the command line
   */
  public static List<String> of(List<String> prefix, Class<?> main, String... args) {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    List<String> moduleOptions = moduleOptions();
    if (moduleOptions.stream().noneMatch(o -> o.startsWith("--enable-native-access="))) {
      // a JVM on the class path that was started without it (a build tool's, Spark's): the child
      // calls UCX all the same
      cmd.add("--enable-native-access=ALL-UNNAMED");
    }
    Module module = main.getModule();
    for (String option : moduleOptions) {
      cmd.add(
          module.isNamed() && option.startsWith(NATIVE_ACCESS)
              ? nativeAccessWithin(module, option)
              : option);
    }
    String classPath = System.getProperty("java.class.path", "");
    if (!classPath.isEmpty()) {
      cmd.add("-cp");
      cmd.add(classPath);
    }
    if (module.isNamed()) {
      cmd.add("-m");
      cmd.add(module.getName() + "/" + main.getName());
    } else {
      cmd.add(main.getName());
    }
    cmd.addAll(List.of(args));
    return cmd;
  }

  /**
   * {@code option} ({@code --enable-native-access=a,b,...}) with only the names the child's module
   * graph holds: {@code main}'s module, what it reads and the providers of the services they use,
   * as this JVM resolved them, and ALL-UNNAMED (alone when no name is left). The child resolves
   * from {@code main}'s module, so a module of this JVM's that it never reads (bench's, when a
   * fault runner starts a load) would be named to it in vain, and the JVM warns of each such name.
   */
  static String nativeAccessWithin(Module main, String option) {
    Configuration config = main.getLayer().configuration();
    Set<String> graph = new HashSet<>(Set.of("ALL-UNNAMED"));
    Deque<ResolvedModule> todo = new ArrayDeque<>();
    config.findModule(main.getName()).ifPresent(todo::add);
    while (!todo.isEmpty()) {
      ResolvedModule m = todo.pop();
      ModuleDescriptor d = m.reference().descriptor();
      if (!graph.add(m.name()) || d.isAutomatic()) {
        continue; // an automatic module reads every module, and resolves none of them
      }
      todo.addAll(m.reads());
      for (ResolvedModule other : config.modules()) { // service binding: providers of its uses
        if (other.reference().descriptor().provides().stream()
            .anyMatch(p -> d.uses().contains(p.service()))) {
          todo.add(other);
        }
      }
    }
    String names =
        Arrays.stream(option.substring(NATIVE_ACCESS.length()).split(","))
            .filter(graph::contains)
            .collect(Collectors.joining(","));
    return NATIVE_ACCESS + (names.isEmpty() ? "ALL-UNNAMED" : names); // an empty list is refused
  }

  /** This JVM's module options, in the order it was given them. */
  static List<String> moduleOptions() {
    List<String> options = new ArrayList<>();
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (MODULE_OPTIONS.stream().anyMatch(arg::startsWith)) {
        options.add(arg);
      }
    }
    return options;
  }

  /**
   * {@return the process, started with stdout and stderr inherited; UCX's log goes to stderr}
   *
   * @param command the command line
   */
  public static ProcessBuilder inheritingIo(List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().put("UCX_LOG_FILE", "stderr");
    return builder;
  }
}
