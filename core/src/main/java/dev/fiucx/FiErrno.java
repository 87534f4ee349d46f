package dev.fiucx;

/**
 * libfabric's error numbers, the values of {@code rdma/fi_errno.h} (libfabric 1.17, Linux errno
 * values). Hot-path calls return them negated: {@code -FiErrno.EOPNOTSUPP}.
 */
public final class FiErrno {
  /** {@code FI_SUCCESS}: success. */
  public static final int SUCCESS = 0;

  /** {@code FI_EPERM}: operation not permitted. */
  public static final int EPERM = 1;

  /** {@code FI_ENOENT}: no such entry. */
  public static final int ENOENT = 2;

  /** {@code FI_EINTR}: interrupted. */
  public static final int EINTR = 4;

  /** {@code FI_EIO}: I/O error. */
  public static final int EIO = 5;

  /** {@code FI_E2BIG}: argument list too long. */
  public static final int E2BIG = 7;

  /** {@code FI_EBADF}: bad file number. */
  public static final int EBADF = 9;

  /** {@code FI_EAGAIN}: resource temporarily unavailable, try again (also FI_EWOULDBLOCK). */
  public static final int EAGAIN = 11; // EAGAIN, also FI_EWOULDBLOCK

  /** {@code FI_ENOMEM}: out of memory. */
  public static final int ENOMEM = 12;

  /** {@code FI_EACCES}: permission denied. */
  public static final int EACCES = 13;

  /** {@code FI_EFAULT}: bad address. */
  public static final int EFAULT = 14;

  /** {@code FI_EBUSY}: device or resource busy. */
  public static final int EBUSY = 16;

  /** {@code FI_ENODEV}: no such device. */
  public static final int ENODEV = 19;

  /** {@code FI_EINVAL}: invalid argument. */
  public static final int EINVAL = 22;

  /** {@code FI_EMFILE}: too many open files. */
  public static final int EMFILE = 24;

  /** {@code FI_ENOSPC}: no space left. */
  public static final int ENOSPC = 28;

  /** {@code FI_ENOSYS}: function not implemented. */
  public static final int ENOSYS = 38;

  /** {@code FI_ENOMSG}: no message of desired type. */
  public static final int ENOMSG = 42;

  /** {@code FI_ENODATA}: no data available. */
  public static final int ENODATA = 61;

  /** {@code FI_EOVERFLOW}: value too large. */
  public static final int EOVERFLOW = 75;

  /** {@code FI_EMSGSIZE}: message too long. */
  public static final int EMSGSIZE = 90;

  /** {@code FI_ENOPROTOOPT}: protocol not available. */
  public static final int ENOPROTOOPT = 92;

  /** {@code FI_EOPNOTSUPP}: operation not supported. */
  public static final int EOPNOTSUPP = 95;

  /** {@code FI_EADDRINUSE}: address already in use. */
  public static final int EADDRINUSE = 98;

  /** {@code FI_EADDRNOTAVAIL}: cannot assign requested address. */
  public static final int EADDRNOTAVAIL = 99;

  /** {@code FI_ENETDOWN}: network is down. */
  public static final int ENETDOWN = 100;

  /** {@code FI_ENETUNREACH}: network is unreachable. */
  public static final int ENETUNREACH = 101;

  /** {@code FI_ECONNABORTED}: connection aborted. */
  public static final int ECONNABORTED = 103;

  /** {@code FI_ECONNRESET}: connection reset by peer. */
  public static final int ECONNRESET = 104;

  /** {@code FI_ENOBUFS}: no buffer space available. */
  public static final int ENOBUFS = 105;

  /** {@code FI_EISCONN}: already connected. */
  public static final int EISCONN = 106;

  /** {@code FI_ENOTCONN}: not connected. */
  public static final int ENOTCONN = 107;

  /** {@code FI_ESHUTDOWN}: endpoint shut down. */
  public static final int ESHUTDOWN = 108;

  /** {@code FI_ETIMEDOUT}: timed out. */
  public static final int ETIMEDOUT = 110;

  /** {@code FI_ECONNREFUSED}: connection refused. */
  public static final int ECONNREFUSED = 111;

  /** {@code FI_EHOSTDOWN}: host is down. */
  public static final int EHOSTDOWN = 112;

  /** {@code FI_EHOSTUNREACH}: no route to host. */
  public static final int EHOSTUNREACH = 113;

  /** {@code FI_EALREADY}: operation already in progress. */
  public static final int EALREADY = 114;

  /** {@code FI_EINPROGRESS}: operation now in progress. */
  public static final int EINPROGRESS = 115;

  /** {@code FI_EREMOTEIO}: remote I/O error. */
  public static final int EREMOTEIO = 121;

  /** {@code FI_ECANCELED}: operation canceled. */
  public static final int ECANCELED = 125;

  /** {@code FI_EKEYREJECTED}: key was rejected. */
  public static final int EKEYREJECTED = 129;

  // libfabric's own values, FI_ERRNO_OFFSET = 256 and up
  /** {@code FI_EOTHER}: unspecified error. */
  public static final int EOTHER = 256;

  /** {@code FI_ETOOSMALL}: provided buffer is too small. */
  public static final int ETOOSMALL = 257;

  /** {@code FI_EOPBADSTATE}: operation not permitted in current state. */
  public static final int EOPBADSTATE = 258;

  /** {@code FI_EAVAIL}: error available. */
  public static final int EAVAIL = 259;

  /** {@code FI_EBADFLAGS}: flags not supported. */
  public static final int EBADFLAGS = 260;

  /** {@code FI_ENOEQ}: missing or unavailable event queue. */
  public static final int ENOEQ = 261;

  /** {@code FI_EDOMAIN}: invalid resource domain. */
  public static final int EDOMAIN = 262;

  /** {@code FI_ENOCQ}: missing or unavailable completion queue. */
  public static final int ENOCQ = 263;

  /** {@code FI_ECRC}: CRC error. */
  public static final int ECRC = 264;

  /** {@code FI_ETRUNC}: truncation error. */
  public static final int ETRUNC = 265;

  /** {@code FI_ENOKEY}: required key not available. */
  public static final int ENOKEY = 266;

  /** {@code FI_ENOAV}: missing or unavailable address vector. */
  public static final int ENOAV = 267;

  /** {@code FI_EOVERRUN}: queue has been overrun. */
  public static final int EOVERRUN = 268;

  /** {@code FI_ENORX}: receiver not ready. */
  public static final int ENORX = 269;

  private FiErrno() {}

  /**
   * What {@code fi_strerror} says, with the constant's name first; takes the code positive or
   * negative.
   *
   * @param code the error number, positive or negative
   * @return e.g. {@code FI_EAGAIN: resource temporarily unavailable, try again}
   */
  public static String errorString(long code) {
    int c = (int) Math.abs(code);
    return switch (c) {
      case SUCCESS -> "FI_SUCCESS: success";
      case EPERM -> "FI_EPERM: operation not permitted";
      case ENOENT -> "FI_ENOENT: no such entry";
      case EINTR -> "FI_EINTR: interrupted";
      case EIO -> "FI_EIO: I/O error";
      case E2BIG -> "FI_E2BIG: argument list too long";
      case EBADF -> "FI_EBADF: bad file number";
      case EAGAIN -> "FI_EAGAIN: resource temporarily unavailable, try again";
      case ENOMEM -> "FI_ENOMEM: out of memory";
      case EACCES -> "FI_EACCES: permission denied";
      case EFAULT -> "FI_EFAULT: bad address";
      case EBUSY -> "FI_EBUSY: device or resource busy";
      case ENODEV -> "FI_ENODEV: no such device";
      case EINVAL -> "FI_EINVAL: invalid argument";
      case EMFILE -> "FI_EMFILE: too many open files";
      case ENOSPC -> "FI_ENOSPC: no space left";
      case ENOSYS -> "FI_ENOSYS: function not implemented";
      case ENOMSG -> "FI_ENOMSG: no message of desired type";
      case ENODATA -> "FI_ENODATA: no data available";
      case EOVERFLOW -> "FI_EOVERFLOW: value too large";
      case EMSGSIZE -> "FI_EMSGSIZE: message too long";
      case ENOPROTOOPT -> "FI_ENOPROTOOPT: protocol not available";
      case EOPNOTSUPP -> "FI_EOPNOTSUPP: operation not supported";
      case EADDRINUSE -> "FI_EADDRINUSE: address already in use";
      case EADDRNOTAVAIL -> "FI_EADDRNOTAVAIL: cannot assign requested address";
      case ENETDOWN -> "FI_ENETDOWN: network is down";
      case ENETUNREACH -> "FI_ENETUNREACH: network is unreachable";
      case ECONNABORTED -> "FI_ECONNABORTED: connection aborted";
      case ECONNRESET -> "FI_ECONNRESET: connection reset by peer";
      case ENOBUFS -> "FI_ENOBUFS: no buffer space available";
      case EISCONN -> "FI_EISCONN: already connected";
      case ENOTCONN -> "FI_ENOTCONN: not connected";
      case ESHUTDOWN -> "FI_ESHUTDOWN: endpoint shut down";
      case ETIMEDOUT -> "FI_ETIMEDOUT: timed out";
      case ECONNREFUSED -> "FI_ECONNREFUSED: connection refused";
      case EHOSTDOWN -> "FI_EHOSTDOWN: host is down";
      case EHOSTUNREACH -> "FI_EHOSTUNREACH: no route to host";
      case EALREADY -> "FI_EALREADY: operation already in progress";
      case EINPROGRESS -> "FI_EINPROGRESS: operation now in progress";
      case EREMOTEIO -> "FI_EREMOTEIO: remote I/O error";
      case ECANCELED -> "FI_ECANCELED: operation canceled";
      case EKEYREJECTED -> "FI_EKEYREJECTED: key was rejected";
      case EOTHER -> "FI_EOTHER: unspecified error";
      case ETOOSMALL -> "FI_ETOOSMALL: provided buffer is too small";
      case EOPBADSTATE -> "FI_EOPBADSTATE: operation not permitted in current state";
      case EAVAIL -> "FI_EAVAIL: error available";
      case EBADFLAGS -> "FI_EBADFLAGS: flags not supported";
      case ENOEQ -> "FI_ENOEQ: missing or unavailable event queue";
      case EDOMAIN -> "FI_EDOMAIN: invalid resource domain";
      case ENOCQ -> "FI_ENOCQ: missing or unavailable completion queue";
      case ECRC -> "FI_ECRC: CRC error";
      case ETRUNC -> "FI_ETRUNC: truncation error";
      case ENOKEY -> "FI_ENOKEY: required key not available";
      case ENOAV -> "FI_ENOAV: missing or unavailable address vector";
      case EOVERRUN -> "FI_EOVERRUN: queue has been overrun";
      case ENORX -> "FI_ENORX: receiver not ready";
      default -> "error " + c;
    };
  }
}
