package dev.fiucx.ucx;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;

/**
 * Every UCX struct layout fiucx writes or reads by offset, written for UCX 1.13 (Debian's 1.13.1,
 * {@code ucp/api/ucp.h}, offsets checked with {@code offsetof} in a C program on this machine), and
 * the version check that keeps them honest: a libucp of another version makes the provider
 * unavailable instead of having its memory written at the wrong offsets.
 *
 * <p>To support another UCX version: check each offset and size below against its headers ({@code
 * offsetof}/{@code sizeof}), and the enums in {@link UcxConstants}, then add the version to {@link
 * #KNOWN}. There is deliberately no switch to skip the check: a wrong layout shows no error, only
 * memory corruption, so running on an unchecked version is never what a user wants.
 */
final class UcxLayout {
  /** The {@code major.minor} series whose layouts this class holds; any release of them. */
  static final String KNOWN = "1.13.x";

  private static final int KNOWN_MAJOR = 1;
  private static final int KNOWN_MINOR = 13;

  // ucp_request_param_t: 72 bytes in 1.13
  static final long PARAM_SIZE = 72;
  static final long PARAM_OP_ATTR_MASK = 0; // uint32_t op_attr_mask
  static final long PARAM_FLAGS = 4; // uint32_t flags
  static final long PARAM_REQUEST = 8; // void *request
  static final long PARAM_CB = 16; // union cb (ucp_send_nbx_callback_t send)
  static final long PARAM_DATATYPE = 24; // ucp_datatype_t datatype
  static final long PARAM_USER_DATA = 32; // void *user_data
  static final long PARAM_REPLY_BUFFER = 40; // void *reply_buffer

  // ucp_context_attr_t: field_mask, request_size, thread_mode, memory_types, name[32]: 64 bytes in
  // 1.13; CONTEXT_ATTR_ALLOCATED leaves room in case a field is added before the check is updated
  static final long CONTEXT_ATTR_ALLOCATED = 256;
  static final long CONTEXT_ATTR_FIELD_MASK = 0; // uint64_t field_mask
  static final long CONTEXT_ATTR_REQUEST_SIZE = 8; // size_t request_size
  static final long UCP_ATTR_FIELD_REQUEST_SIZE = 1; // enum ucp_context_attr_field

  // ucs_global_opts_t (libucs's exported ucs_global_opts): its first field is the default log
  // component (ucs_log_component_config_t), whose first field is the log level (ucs_log_level_t,
  // an int enum: FATAL 0, ERROR 1, WARN 2, ...); ucp_init's warnings are filtered by it
  static final long GLOBAL_OPTS_LOG_LEVEL = 0;
  static final int LOG_LEVEL_FATAL = 0;
  static final int LOG_LEVEL_ERROR = 1;
  static final int LOG_LEVEL_WARN = 2;

  /**
   * The UCP API minor version jucx was built for (jucx 1.14: {@code ucp_init} asks for 1.14). There
   * is no jucx 1.13 on Maven Central, so on Debian's 1.13.1 every context creation warns "UCP API
   * version is incompatible: required >= 1.14, actual 1.13.1": benign for fiucx, which calls only
   * 1.13's functions through jucx and its own downcalls and keeps every layout here.
   */
  static final int JUCX_API_MINOR = 14;

  private UcxLayout() {}

  /** Null when fiucx knows the layouts of UCX {@code major.minor.release}, else why not. */
  static String check(int major, int minor, int release) {
    if (major == KNOWN_MAJOR && minor == KNOWN_MINOR) {
      return null;
    }
    return "UCX "
        + major
        + "."
        + minor
        + "."
        + release
        + " found; fiucx knows the struct layouts of UCX "
        + KNOWN
        + " only (ucp_request_param_t, ucp_context_attr_t), and writing them at the wrong offsets"
        + " would corrupt memory: install UCX "
        + KNOWN
        + " (Debian's libucx0 1.13.1)";
  }

  /** The check on the libucp loaded here: null when known, else why not. */
  static String checkLoaded() {
    int[] v = UcpNative.version();
    return check(v[0], v[1], v[2]);
  }

  /** Throws {@code FI_ENODEV} with the reason unless the layouts of {@code version} are known. */
  static void requireKnown(int[] version) {
    String why = check(version[0], version[1], version[2]);
    if (why != null) {
      throw new FiException(FiErrno.ENODEV, why);
    }
  }

  /** What {@code describe()} and {@code info} show: the version found and the verdict. */
  static String verdict() {
    int[] v = UcpNative.version();
    String found = v[0] + "." + v[1] + "." + v[2];
    String why = check(v[0], v[1], v[2]);
    return why == null ? "known (" + found + "; written for UCX " + KNOWN + ")" : why;
  }
}
