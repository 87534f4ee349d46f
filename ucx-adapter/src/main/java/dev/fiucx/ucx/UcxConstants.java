package dev.fiucx.ucx;

/**
 * Every native constant this package passes to UCX, with the header it comes from. Values were
 * checked against the headers of Debian's UCX 1.13.1, 1.18.1 and 1.23.0~rc1 ({@code
 * tools/ucx-layout} prints them); struct offsets are in {@link UcxLayout}, what differs between
 * series in {@link UcxSeries}.
 */
final class UcxConstants {
  // ucp/api/ucp.h, enum ucp_atomic_op_t
  static final int UCP_ATOMIC_OP_ADD = 0;
  static final int UCP_ATOMIC_OP_SWAP = 1;
  static final int UCP_ATOMIC_OP_CSWAP = 2;
  static final int UCP_ATOMIC_OP_AND = 3;
  static final int UCP_ATOMIC_OP_OR = 4;
  static final int UCP_ATOMIC_OP_XOR = 5;

  // ucp/api/ucp.h, enum ucp_op_attr_t: which fields of ucp_request_param_t are valid
  static final int UCP_OP_ATTR_FIELD_REQUEST = 1 << 0;
  static final int UCP_OP_ATTR_FIELD_CALLBACK = 1 << 1;
  static final int UCP_OP_ATTR_FIELD_USER_DATA = 1 << 2;
  static final int UCP_OP_ATTR_FIELD_DATATYPE = 1 << 3;
  static final int UCP_OP_ATTR_FIELD_FLAGS = 1 << 4;
  static final int UCP_OP_ATTR_FIELD_REPLY_BUFFER = 1 << 5;
  // deny immediate completion: UCX returns a request and calls its callback even when the operation
  // completed inside the call
  static final int UCP_OP_ATTR_FLAG_NO_IMM_CMPL = 1 << 16;

  // struct layouts (ucp_request_param_t, ucp_context_attr_t) live in UcxLayout, with the version
  // check that guards them

  /**
   * ucp/api/ucp.h ucp_dt_make_contig(n): {@code (n << UCP_DATATYPE_SHIFT) | UCP_DATATYPE_CONTIG}.
   */
  static long ucpDtMakeContig(int elementSize) {
    return ((long) elementSize) << 3; // UCP_DATATYPE_SHIFT = 3, UCP_DATATYPE_CONTIG = 0
  }

  // ucp/api/ucp.h, enum ucp_ep_close_flags_t: close without flushing or telling the peer
  static final int UCP_EP_CLOSE_FLAG_FORCE = 1;

  // ucs/type/status.h, enum ucs_status_t (UCS_S_PACKED: one signed byte in C calls)
  static final int UCS_OK = 0;
  static final int UCS_INPROGRESS = 1;
  static final int UCS_ERR_NO_MESSAGE = -1;
  static final int UCS_ERR_NO_RESOURCE = -2;
  static final int UCS_ERR_IO_ERROR = -3;
  static final int UCS_ERR_NO_MEMORY = -4;
  static final int UCS_ERR_INVALID_PARAM = -5;
  static final int UCS_ERR_UNREACHABLE = -6;
  static final int UCS_ERR_INVALID_ADDR = -7;
  static final int UCS_ERR_NOT_IMPLEMENTED = -8;
  static final int UCS_ERR_MESSAGE_TRUNCATED = -9;
  static final int UCS_ERR_NO_PROGRESS = -10;
  static final int UCS_ERR_BUFFER_TOO_SMALL = -11;
  static final int UCS_ERR_NO_ELEM = -12;
  static final int UCS_ERR_SOME_CONNECTS_FAILED = -13;
  static final int UCS_ERR_NO_DEVICE = -14;
  static final int UCS_ERR_BUSY = -15;
  static final int UCS_ERR_CANCELED = -16;
  static final int UCS_ERR_SHMEM_SEGMENT = -17;
  static final int UCS_ERR_ALREADY_EXISTS = -18;
  static final int UCS_ERR_OUT_OF_RANGE = -19;
  static final int UCS_ERR_TIMED_OUT = -20;
  static final int UCS_ERR_EXCEEDS_LIMIT = -21;
  static final int UCS_ERR_UNSUPPORTED = -22;
  static final int UCS_ERR_REJECTED = -23;
  static final int UCS_ERR_NOT_CONNECTED = -24;
  static final int UCS_ERR_CONNECTION_RESET = -25;
  static final int UCS_ERR_FIRST_LINK_FAILURE = -40;
  static final int UCS_ERR_LAST_LINK_FAILURE = -59;
  static final int UCS_ERR_FIRST_ENDPOINT_FAILURE = -60;
  static final int UCS_ERR_ENDPOINT_TIMEOUT = -80;
  static final int UCS_ERR_LAST_ENDPOINT_FAILURE = -89;

  /**
   * ucs/type/status.h UCS_ERR_LAST (-100): a ucs_status_ptr_t at or above {@code (uintptr_t) -100}
   * is an error code, not a request (UCS_PTR_IS_ERR).
   */
  static final long UCS_ERR_LAST = -100;

  // ucs/memory/memory_type.h, ucs_memory_type_t: HOST is 0 in every series (the values after it,
  // UNKNOWN among them, moved as memory types were added)
  static final int UCS_MEMORY_TYPE_HOST = 0;

  // ucs/config/types.h, ucs_config_print_flags_t
  static final int UCS_CONFIG_PRINT_CONFIG = 1;

  // ucp/api/ucp.h, enum ucp_send_am_flags: AM_SEND_FLAG_EAGER keeps control messages whole in the
  // receive callback (no rendezvous, so the data pointer is always valid there)
  static final long UCP_AM_SEND_FLAG_EAGER = 1 << 1;

  // UCP_AM_SEND_FLAG_REPLY: the receiver's callback gets the endpoint UCX keeps for the sender
  static final long UCP_AM_SEND_FLAG_REPLY = 1;

  // ucp/wireup/address.c (1.13): a worker address starts with a header byte (version in the low 4
  // bits, V1 = 0; flags above them) and, with the WORKER_UUID flag, the worker's UUID; a next
  // byte of UCP_NULL_RESOURCE (0xff) ends an address that lists no transport
  static final int UCP_ADDRESS_VERSION_MASK = 0xf;
  static final int UCP_ADDRESS_VERSION_V1 = 0;
  static final int UCP_ADDRESS_FLAGS_SHIFT_V1 = 4;
  static final int UCP_ADDRESS_HEADER_FLAG_WORKER_UUID = 1 << 1;
  static final byte UCP_NULL_RESOURCE = (byte) 0xff;

  // ucp/api/ucp.h, enum ucp_am_cb_flags: the callback sees the whole message
  static final long UCP_AM_FLAG_WHOLE_MSG = 1;

  // ucp/api/ucp.h, ucp_mem_map_params prot bits (UCP_MEM_MAP_PROT_*)
  static final long UCP_MEM_MAP_PROT_LOCAL_READ = 1;
  static final long UCP_MEM_MAP_PROT_LOCAL_WRITE = 1 << 1;
  static final long UCP_MEM_MAP_PROT_REMOTE_READ = 1 << 8;
  static final long UCP_MEM_MAP_PROT_REMOTE_WRITE = 1 << 9;

  private UcxConstants() {}
}
