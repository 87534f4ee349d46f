package dev.fiucx.ucx;

/**
 * The offsets and sizes of every UCX struct field fiucx writes or reads by offset, as one series'
 * headers have them ({@code offsetof}/{@code sizeof}; {@code tools/ucx-layout} prints them from the
 * installed headers, and {@code UcxLayoutProbeTest} compares its output with {@link UcxSeries}' row
 * wherever {@code libucx-dev} is installed). The code writes through the constants below, which are
 * {@link #V1_13}'s: every series fiucx runs on has that layout (structs only grew at their ends),
 * and a series with another would need its own row and code that reads it.
 *
 * @param paramSize {@code sizeof(ucp_request_param_t)}
 * @param paramOpAttrMask {@code ucp_request_param_t.op_attr_mask} (uint32_t)
 * @param paramFlags {@code .flags} (uint32_t)
 * @param paramRequest {@code .request} (void *)
 * @param paramCb {@code .cb} (a union of callbacks)
 * @param paramDatatype {@code .datatype} (ucp_datatype_t)
 * @param paramUserData {@code .user_data} (void *)
 * @param paramReplyBuffer {@code .reply_buffer} (void *)
 * @param contextAttrFieldMask {@code ucp_context_attr_t.field_mask} (uint64_t)
 * @param contextAttrRequestSize {@code ucp_context_attr_t.request_size} (size_t)
 * @param globalOptsLogLevel {@code ucs_global_opts_t.log_component.log_level} (an int enum)
 */
record UcxLayout(
    long paramSize,
    long paramOpAttrMask,
    long paramFlags,
    long paramRequest,
    long paramCb,
    long paramDatatype,
    long paramUserData,
    long paramReplyBuffer,
    long contextAttrFieldMask,
    long contextAttrRequestSize,
    long globalOptsLogLevel) {

  /** UCX 1.13's layout, and 1.18's (checked with their headers). */
  static final UcxLayout V1_13 = new UcxLayout(72, 0, 4, 8, 16, 24, 32, 40, 0, 8, 0);

  /**
   * UCX 1.22's, and 1.23's: {@code ucp_request_param_t} gained {@code remote_datatype}, {@code
   * remote} and {@code remote_count} at its end (read only under their own mask bits).
   */
  static final UcxLayout V1_22 = new UcxLayout(96, 0, 4, 8, 16, 24, 32, 40, 0, 8, 0);

  /** Bytes allocated for one {@code ucp_request_param_t}: at least every series' size. */
  static final long PARAM_ROOM = 128;

  static final long PARAM_OP_ATTR_MASK = V1_13.paramOpAttrMask;
  static final long PARAM_FLAGS = V1_13.paramFlags;
  static final long PARAM_REQUEST = V1_13.paramRequest;
  static final long PARAM_CB = V1_13.paramCb;
  static final long PARAM_DATATYPE = V1_13.paramDatatype;
  static final long PARAM_USER_DATA = V1_13.paramUserData;
  static final long PARAM_REPLY_BUFFER = V1_13.paramReplyBuffer;

  // ucp_context_attr_t is queried into CONTEXT_ATTR_ALLOCATED bytes: 64 in 1.13, and newer series
  // add fields at its end (UCX writes only those the mask asks for; the probe's test checks the
  // size stays below this)
  static final long CONTEXT_ATTR_ALLOCATED = 256;
  static final long CONTEXT_ATTR_FIELD_MASK = V1_13.contextAttrFieldMask;
  static final long CONTEXT_ATTR_REQUEST_SIZE = V1_13.contextAttrRequestSize;
  static final long UCP_ATTR_FIELD_REQUEST_SIZE = 1; // enum ucp_context_attr_field

  // ucs_global_opts_t (libucs's exported ucs_global_opts): its first field is the default log
  // component (ucs_log_component_config_t), whose first field is the log level (ucs_log_level_t,
  // an int enum: FATAL 0, ERROR 1, WARN 2, ...); ucp_init's warnings are filtered by it
  static final long GLOBAL_OPTS_LOG_LEVEL = V1_13.globalOptsLogLevel;
  static final int LOG_LEVEL_FATAL = 0;
  static final int LOG_LEVEL_ERROR = 1;
  static final int LOG_LEVEL_WARN = 2;

  /**
   * Whether the code, which writes {@link #V1_13}'s offsets into {@link #PARAM_ROOM} bytes, writes
   * this layout rightly: the same offsets, and a param that fits.
   */
  boolean writtenAlike() {
    UcxLayout sameSize =
        new UcxLayout(
            V1_13.paramSize,
            paramOpAttrMask,
            paramFlags,
            paramRequest,
            paramCb,
            paramDatatype,
            paramUserData,
            paramReplyBuffer,
            contextAttrFieldMask,
            contextAttrRequestSize,
            globalOptsLogLevel);
    return paramSize <= PARAM_ROOM && sameSize.equals(V1_13);
  }

  /** Every field as {@code tools/ucx-layout} prints it: {@code name value}, in its order. */
  java.util.Map<String, Long> fields() {
    java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
    m.put("sizeof(ucp_request_param_t)", paramSize);
    m.put("ucp_request_param_t.op_attr_mask", paramOpAttrMask);
    m.put("ucp_request_param_t.flags", paramFlags);
    m.put("ucp_request_param_t.request", paramRequest);
    m.put("ucp_request_param_t.cb", paramCb);
    m.put("ucp_request_param_t.datatype", paramDatatype);
    m.put("ucp_request_param_t.user_data", paramUserData);
    m.put("ucp_request_param_t.reply_buffer", paramReplyBuffer);
    m.put("ucp_context_attr_t.field_mask", contextAttrFieldMask);
    m.put("ucp_context_attr_t.request_size", contextAttrRequestSize);
    m.put("ucs_global_opts_t.log_component.log_level", globalOptsLogLevel);
    return m;
  }

  /**
   * The UCP API minor version jucx was built for (jucx 1.14: {@code ucp_init} asks for 1.14). There
   * is no jucx 1.13 on Maven Central, so on Debian's 1.13.1 every context creation warns "UCP API
   * version is incompatible: required >= 1.14, actual 1.13.1": benign for fiucx, which calls only
   * 1.13's functions through jucx and its own downcalls and keeps every layout here.
   */
  static final int JUCX_API_MINOR = 14;
}
