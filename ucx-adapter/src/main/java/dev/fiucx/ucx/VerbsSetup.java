package dev.fiucx.ucx;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The UCX configuration fiucx sets where UCX may use verbs (InfiniBand, RoCE), so that a user needs
 * to know none of it, and the one user choice it refuses. Read by {@link UcxSetup}; each setting
 * comes with the reason {@code info} shows.
 *
 * <ul>
 *   <li>{@code UD_ETH_DGID_CHECK=n} where ud_verbs may run on a RoCE port of a device other than a
 *       ConnectX (Soft-RoCE's rxe, for one) and UCX is older than 1.19: there UCX takes a RoCE
 *       packet's address family from a completion field only mlx5 hardware fills, so its
 *       destination-GID check drops every ud packet; wire-up never completes and UCX then aborts
 *       the process (an assertion in {@code ucp_request.c}, seen on 1.13.1 over rxe). UCX 1.19
 *       reads the family from the packet's header instead. A user who sets the check on there is
 *       refused with that reason before UCX opens.
 *   <li>{@code RC_TIMEOUT=1s} and {@code RC_RETRY_COUNT=3} where rc may run on a verbs port: a
 *       message a peer does not acknowledge (it died, or its link is down) fails its endpoint after
 *       the retries run out, about 4 x 1.07 s (the device rounds the timeout up to 4.096 us x
 *       2^18), where UCX's default of 7 retries took about 8.6 s.
 *   <li>{@code KEEPALIVE_INTERVAL=2s} and {@code UD_TIMEOUT=5s} where verbs may run: operations
 *       whose messages the peer acknowledged before it died (a software atomic waits for the
 *       target's answer with nothing left to retry) end only when keepalive finds the peer dead, a
 *       keepalive every 2 s on the ud lane, dead after 5 s without an answer; with UCX's defaults
 *       (20 s, 30 s) that took 43 s in the Soft-RoCE VM.
 *   <li>Each of these is left alone where the user set it.
 *   <li>{@code rc_verbs} alone as the transport list becomes {@code rc_verbs,ud_verbs:aux}, as
 *       UCX's own alias {@code rc_v} is: rc needs a transport to wire up on, and without one UCX
 *       finds no way to connect (UCX 1.13.1).
 * </ul>
 */
final class VerbsSetup {
  /** The RC transport timeout fiucx sets. */
  static final String RC_TIMEOUT = "1s";

  /** The RC retry count fiucx sets. */
  static final String RC_RETRY_COUNT = "3";

  /** How often UCX checks its peers when verbs may run. */
  static final String KEEPALIVE_INTERVAL = "2s";

  /** How long a ud peer may leave a packet unacknowledged before UCX takes it for dead. */
  static final String UD_TIMEOUT = "5s";

  private static final String RC_REASON =
      "a message a dead or unreachable peer does not acknowledge fails after "
          + RC_RETRY_COUNT
          + " retries of "
          + RC_TIMEOUT
          + " (about 4.3 s), not UCX's 7";

  private static final String KEEPALIVE_REASON =
      "operations a peer acknowledged before it died end when keepalive finds it dead: every "
          + KEEPALIVE_INTERVAL
          + ", dead after "
          + UD_TIMEOUT
          + " without an answer (about 7 s, not UCX's 50)";

  /** UCX_TLS names that are, or include, ud_verbs. */
  private static final Set<String> UD_VERBS = Set.of("ud_verbs", "ud_v", "ud", "rc_v", "rc", "ib");

  /** UCX_TLS names that are, or include, an RC transport. */
  private static final Set<String> RC = Set.of("rc_verbs", "rc_mlx5", "rc_v", "rc_x", "rc", "ib");

  /** The environment variables through which UCX reads the ud destination-GID check. */
  private static final String[] DGID_CHECK_VARIABLES = {
    "UCX_UD_VERBS_ETH_DGID_CHECK", "UCX_UD_ETH_DGID_CHECK", "UCX_UD_MLX5_ETH_DGID_CHECK"
  };

  private VerbsSetup() {}

  /** {@code transports} as the UCX_TLS fiucx sets: {@code rc_verbs} gets its wire-up transport. */
  static String tls(String transports) {
    return "rc_verbs".equals(transports) ? "rc_verbs,ud_verbs:aux" : transports;
  }

  /**
   * The settings for a context whose UCX_TLS is {@code tls} (null: UCX's choice, every transport),
   * on a machine with {@code ports}, under UCX {@code series} and the environment {@code env}: into
   * {@code overrides} (names without {@code UCX_}), each with its reason into {@code reasons}.
   *
   * @throws FiException FI_ENODEV where the user's own setting would make UCX abort the process:
   *     UCX cannot open on these devices so
   */
  static void apply(
      String tls,
      VerbsPorts ports,
      UcxSeries series,
      Map<String, String> env,
      Map<String, String> overrides,
      Map<String, String> reasons) {
    if (ports.ports().isEmpty()) {
      return;
    }
    var exposed =
        ports.roce().stream().filter(p -> !p.driver().startsWith("mlx5")).map(p -> p.name());
    String exposedPorts = String.join(", ", exposed.toList());
    if (series.udDgidCheckDropsRoce() && lists(tls, UD_VERBS) && !exposedPorts.isEmpty()) {
      String name = null;
      for (String v : DGID_CHECK_VARIABLES) {
        if (env.get(v) != null) {
          name = v;
          break;
        }
      }
      if (name == null) {
        overrides.put("UD_ETH_DGID_CHECK", "n");
        reasons.put(
            "UD_ETH_DGID_CHECK",
            "UCX before 1.19 drops every ud packet on "
                + exposedPorts
                + " with its destination-GID check on, and then aborts in wire-up");
      } else if (yes(env.get(name))) {
        throw new FiException(
            FiErrno.ENODEV,
            name
                + "="
                + env.get(name)
                + ": UCX 1."
                + series.minor()
                + "'s ud_verbs takes every packet on the RoCE port(s) "
                + exposedPorts
                + " for another host's and drops it, and UCX then aborts the process in wire-up"
                + " (fixed in UCX 1.19). Unset it (fiucx then turns the check off), set it to n,"
                + " or leave ud_verbs out of UCX_TLS");
      }
    }
    Setting s = new Setting(env, overrides, reasons);
    if (lists(tls, RC)) {
      s.unlessUsers("RC_TIMEOUT", RC_TIMEOUT, RC_REASON, "RC_", "RC_VERBS_", "RC_MLX5_");
      s.unlessUsers("RC_RETRY_COUNT", RC_RETRY_COUNT, RC_REASON, "RC_", "RC_VERBS_", "RC_MLX5_");
    }
    if (lists(tls, RC) || lists(tls, UD_VERBS)) {
      s.unlessUsers("KEEPALIVE_INTERVAL", KEEPALIVE_INTERVAL, KEEPALIVE_REASON, "");
      s.unlessUsers("UD_TIMEOUT", UD_TIMEOUT, KEEPALIVE_REASON, "UD_", "UD_VERBS_", "UD_MLX5_");
    }
  }

  /** Where settings go, and the environment whose own settings win. */
  private record Setting(
      Map<String, String> env, Map<String, String> overrides, Map<String, String> reasons) {
    /**
     * Sets {@code name} (e.g. {@code RC_TIMEOUT}) unless the user set it: under one of {@code
     * prefixes} with the part after the name's first underscore (e.g. {@code UCX_RC_VERBS_TIMEOUT}
     * for prefix {@code RC_VERBS_}), or as itself for the prefix {@code ""}.
     */
    void unlessUsers(String name, String value, String reason, String... prefixes) {
      String field = name.substring(name.indexOf('_') + 1);
      for (String prefix : prefixes) {
        String variable = "UCX_" + (prefix.isEmpty() ? name : prefix + field);
        if (env.get(variable) != null) {
          return;
        }
      }
      overrides.put(name, value);
      reasons.put(name, reason);
    }
  }

  /** Whether the UCX_TLS list {@code tls} (null: every transport) names one of {@code names}. */
  private static boolean lists(String tls, Set<String> names) {
    if (tls == null || tls.isBlank() || tls.trim().startsWith("^")) {
      return true; // every transport, or every one but those named
    }
    return Arrays.stream(tls.toLowerCase(Locale.ROOT).split(","))
        .map(t -> t.trim().replaceFirst(":aux$", ""))
        .anyMatch(t -> t.equals("all") || names.contains(t));
  }

  /** Whether a UCX boolean setting's value means yes. */
  private static boolean yes(String value) {
    return Set.of("y", "yes", "on", "1", "true").contains(value.trim().toLowerCase(Locale.ROOT));
  }

  /** The reasons in one line, for {@code info}. */
  static String describe(Map<String, String> overrides, Map<String, String> reasons) {
    var lines = new LinkedHashMap<String, String>();
    reasons.forEach((k, v) -> lines.put(k, "UCX_" + k + "=" + overrides.get(k) + " (" + v + ")"));
    return lines.isEmpty() ? "none" : String.join("; ", lines.values());
  }
}
