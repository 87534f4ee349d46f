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
 *   <li>{@code RC_TIMEOUT=1s} and {@code RC_RETRY_COUNT=3} where rc may run on a verbs port: an
 *       operation to a peer that stopped answering (dead, or its link down) ends with an error
 *       after the retries run out, about 4 x 1.07 s (the device rounds the timeout up to 4.096 us x
 *       2^18), where UCX's default of 7 retries took about 8.6 s. Unset where the user set either
 *       one.
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
    if (lists(tls, RC)) {
      setUnlessUsers(env, overrides, reasons, "TIMEOUT", RC_TIMEOUT);
      setUnlessUsers(env, overrides, reasons, "RETRY_COUNT", RC_RETRY_COUNT);
    }
  }

  /** Sets RC_{@code field} unless the user set it for rc, rc_verbs or rc_mlx5. */
  private static void setUnlessUsers(
      Map<String, String> env,
      Map<String, String> overrides,
      Map<String, String> reasons,
      String field,
      String value) {
    for (String prefix : new String[] {"UCX_RC_", "UCX_RC_VERBS_", "UCX_RC_MLX5_"}) {
      if (env.get(prefix + field) != null) {
        return;
      }
    }
    overrides.put("RC_" + field, value);
    reasons.put(
        "RC_" + field,
        "an operation to a dead or unreachable peer ends in an error after "
            + RC_RETRY_COUNT
            + " retries of "
            + RC_TIMEOUT
            + " (about 4.3 s), not UCX's 7");
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
