package dev.fiucx.ucx;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Who executes the atomics UCX does for a worker, read from the worker's atomic resources (the
 * {@code atomics:} line of {@code ucp_worker_print_info}): a CPU (shared memory, self), a device (a
 * NIC that does UCP's whole atomic set, e.g. rc_mlx5 on a ConnectX), or, where the worker has none,
 * UCX itself in software on the target (tcp, and verbs devices without UCP's whole set, such as
 * Soft-RoCE's rxe or any device with 64-bit fetch-add and compare-swap only).
 *
 * <p>Device atomics are coherent only with other atomics of the same device, never with CPU
 * instructions on the same memory; so memory a device updates gets no CPU atomics from fiucx (no
 * direct path), and an initiator and a target that execute atomics differently are not connected
 * ({@link #mixingRefusal}).
 *
 * @param kind who executes them
 * @param lanes the worker's atomic resources as UCX prints them ({@code index:transport/device})
 */
record AtomicExecution(Kind kind, List<String> lanes) {
  /** Who executes UCX's atomics. */
  enum Kind {
    /** a CPU: UCX's atomic lanes are shared memory or self */
    CPU,
    /** the target's UCX, on its CPU, when it progresses: no lane has device atomics */
    SOFTWARE,
    /** a NIC (device atomics) */
    DEVICE
  }

  /** UCX transports whose atomics are executed by a CPU. */
  static final Set<String> CPU_TRANSPORTS =
      Set.of("self", "sysv", "posix", "xpmem", "cma", "knem", "tcp");

  /** The execution a worker with atomic resources {@code line} has. */
  static AtomicExecution of(String line) {
    List<String> lanes =
        Arrays.stream(line.split(",")).map(String::trim).filter(l -> !l.isEmpty()).toList();
    if (lanes.isEmpty()) {
      return new AtomicExecution(Kind.SOFTWARE, lanes);
    }
    boolean device = lanes.stream().anyMatch(l -> !CPU_TRANSPORTS.contains(transport(l)));
    return new AtomicExecution(device ? Kind.DEVICE : Kind.CPU, lanes);
  }

  /** The transport of a lane such as {@code 3:rc_mlx5/mlx5_0:1}. */
  static String transport(String lane) {
    return lane.replaceFirst("^\\s*\\d+:", "").replaceFirst("/.*", "").trim();
  }

  /** The lanes whose atomics a device executes. */
  List<String> deviceLanes() {
    return lanes.stream().filter(l -> !CPU_TRANSPORTS.contains(transport(l))).toList();
  }

  /** What {@code info} says: who executes the native ops. */
  String describe() {
    return switch (kind) {
      case CPU ->
          "CPU atomics: UCX's atomic lanes are shared memory or self ("
              + String.join(", ", lanes)
              + ")";
      case SOFTWARE ->
          "software: no transport here has a device for UCP's whole atomic set, so the target's"
              + " UCX does each native op on its CPU when it progresses (a target that does not"
              + " progress stalls its initiators)";
      case DEVICE ->
          "device atomics on "
              + String.join(", ", deviceLanes())
              + ": the NIC does every native op; not coherent with CPU atomics on the same"
              + " memory, so no direct path, and peers whose atomics are not device atomics are"
              + " refused";
    };
  }

  /**
   * Why an initiator with this execution must not operate on a region of a target whose memory is
   * updated by device atomics ({@code targetDevice}) or not, or null when the two are coherent:
   * device atomics meet only device atomics.
   */
  String mixingRefusal(boolean targetDevice) {
    boolean device = kind == Kind.DEVICE;
    if (device == targetDevice) {
      return null;
    }
    return device
        ? "this initiator's atomics are device atomics ("
            + String.join(", ", deviceLanes())
            + ") and the target's are not: the NIC's atomics would not be coherent with the"
            + " target's CPU atomics on the same memory; open both with the same UCX_TLS"
        : "the target's memory is updated by device (NIC) atomics and this initiator's atomics"
            + " are "
            + (kind == Kind.CPU ? "CPU atomics" : "software atomics")
            + ": the two would not be coherent; open the initiator with the target's verbs"
            + " transport (e.g. --transport rc_verbs) so that its atomics go through the NIC too";
  }
}
