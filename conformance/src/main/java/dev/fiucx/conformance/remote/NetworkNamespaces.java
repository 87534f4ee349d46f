package dev.fiucx.conformance.remote;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two "hosts" on one machine: network namespaces joined by a veth pair ({@code 10.77.x.1} and
 * {@code 10.77.x.2}), made with iproute2 and removed on close. Processes run in a host through
 * {@link #prefix}. Needs root (CAP_NET_ADMIN).
 */
public final class NetworkNamespaces implements AutoCloseable {
  private final String a;
  private final String b;
  private final int subnet;
  private final String vethA;

  /** Creates the two hosts; names carry this process's pid so parallel runs do not clash. */
  public NetworkNamespaces() {
    long pid = ProcessHandle.current().pid();
    a = "fiucx-a-" + pid;
    b = "fiucx-b-" + pid;
    subnet = (int) (pid % 250) + 1;
    vethA = "fxa" + pid;
    String vethB = "fxb" + pid;
    try {
      run("ip", "netns", "add", a);
      run("ip", "netns", "add", b);
      run("ip", "link", "add", vethA, "type", "veth", "peer", "name", vethB);
      run("ip", "link", "set", vethA, "netns", a);
      run("ip", "link", "set", vethB, "netns", b);
      run("ip", "-n", a, "addr", "add", "10.77." + subnet + ".1/24", "dev", vethA);
      run("ip", "-n", b, "addr", "add", "10.77." + subnet + ".2/24", "dev", vethB);
      for (String[] nsDev : new String[][] {{a, vethA}, {b, vethB}, {a, "lo"}, {b, "lo"}}) {
        run("ip", "-n", nsDev[0], "link", "set", nsDev[1], "up");
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** {@return whether this process may create namespaces (root with iproute2)} */
  public static boolean available() {
    try {
      Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
      return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0 && isRoot();
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static boolean isRoot() throws IOException, InterruptedException {
    Process p = new ProcessBuilder("id", "-u").start();
    String uid = new String(p.getInputStream().readAllBytes()).trim();
    return p.waitFor(5, TimeUnit.SECONDS) && uid.equals("0");
  }

  /**
   * {@return the address of host {@code 0} or {@code 1} on the veth link}
   *
   * @param host 0 or 1
   */
  public String address(int host) {
    return "10.77." + subnet + "." + (host == 0 ? 1 : 2);
  }

  /**
   * {@return the command prefix that runs a process in host {@code 0} or {@code 1}}
   *
   * @param host 0 or 1
   */
  public List<String> prefix(int host) {
    return List.of("ip", "netns", "exec", host == 0 ? a : b);
  }

  /**
   * Drops what crosses the link into host 0, and with {@code bothWays} what leaves it too (an
   * iptables DROP rule inside host 0's namespace), until {@link #heal}.
   *
   * @param bothWays whether host 0's outgoing packets are dropped as well
   */
  public void partition(boolean bothWays) {
    run("ip", "netns", "exec", a, "iptables", "-I", "INPUT", "-i", vethA, "-j", "DROP");
    if (bothWays) {
      run("ip", "netns", "exec", a, "iptables", "-I", "OUTPUT", "-o", vethA, "-j", "DROP");
    }
  }

  /** Ends a {@link #partition}: host 0's rules removed. */
  public void heal() {
    run("ip", "netns", "exec", a, "iptables", "-F");
  }

  /**
   * Takes the link down at host 0's end, or brings it back up.
   *
   * @param up whether the link comes up
   */
  public void link(boolean up) {
    run("ip", "-n", a, "link", "set", vethA, up ? "up" : "down");
  }

  private static void run(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new FiException(FiErrno.EIO, String.join(" ", cmd) + " failed: " + out.trim());
      }
    } catch (IOException e) {
      throw new FiException(FiErrno.EIO, String.join(" ", cmd), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FiException(FiErrno.EINTR, String.join(" ", cmd), e);
    }
  }

  @Override
  public void close() {
    for (String ns : new String[] {a, b}) {
      try {
        // deleting a namespace deletes the veth end inside it, and with it the pair
        run("ip", "netns", "del", ns);
      } catch (RuntimeException e) {
        // a namespace that set-up never made; nothing to remove
      }
    }
  }
}
