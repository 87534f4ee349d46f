package dev.fiucx.ucx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The verbs (InfiniBand, RoCE) ports this machine has, as the kernel lists them under {@code
 * /sys/class/infiniband}: what the UCX set-up needs to know before UCX opens them. A machine
 * without verbs has none.
 *
 * @param ports each port as {@code device:port}, with its link layer ({@code InfiniBand} or {@code
 *     Ethernet}, the latter RoCE)
 */
record VerbsPorts(List<Port> ports) {
  /** Where the kernel lists verbs devices. */
  static final Path SYSFS = Path.of("/sys/class/infiniband");

  /**
   * One port.
   *
   * @param name {@code device:port}, as UCX names it ({@code UCX_NET_DEVICES})
   * @param linkLayer {@code InfiniBand} or {@code Ethernet} (RoCE)
   * @param driver the kernel driver of the device ({@code mlx5_core} for ConnectX), or {@code
   *     software} for a device without hardware behind it (Soft-RoCE's {@code rxe}, {@code siw})
   */
  record Port(String name, String linkLayer, String driver) {
    boolean roce() {
      return "Ethernet".equalsIgnoreCase(linkLayer);
    }

    @Override
    public String toString() {
      return name + " (" + (roce() ? "RoCE" : linkLayer) + ", " + driver + ")";
    }
  }

  /** This machine's ports. */
  static VerbsPorts here() {
    return under(SYSFS);
  }

  /** The ports listed under {@code sysfs} (a {@code /sys/class/infiniband} tree). */
  static VerbsPorts under(Path sysfs) {
    List<Port> found = new ArrayList<>();
    List<Path> devices;
    try (Stream<Path> listed = Files.list(sysfs)) {
      devices = listed.sorted().toList();
    } catch (IOException e) {
      return new VerbsPorts(List.of()); // no verbs here
    }
    for (Path device : devices) {
      try (Stream<Path> ports = Files.list(device.resolve("ports"))) {
        Path driverLink = device.resolve("device/driver");
        String driver =
            Files.isSymbolicLink(driverLink)
                ? Files.readSymbolicLink(driverLink).getFileName().toString()
                : "software";
        for (Path port : ports.sorted().toList()) {
          String layer = Files.readString(port.resolve("link_layer")).trim();
          found.add(new Port(device.getFileName() + ":" + port.getFileName(), layer, driver));
        }
      } catch (IOException e) {
        // a device without ports, or going away while read: the others stay
      }
    }
    return new VerbsPorts(List.copyOf(found));
  }

  /** The RoCE ports (link layer Ethernet). */
  List<Port> roce() {
    return ports.stream().filter(Port::roce).toList();
  }

  @Override
  public String toString() {
    return ports.isEmpty()
        ? "none"
        : String.join(", ", ports.stream().map(Port::toString).toList());
  }
}
