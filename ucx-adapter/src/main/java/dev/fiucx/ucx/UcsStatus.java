package dev.fiucx.ucx;

import static dev.fiucx.ucx.UcxConstants.*;

import dev.fiucx.FiErrno;

/** Translates UCX status codes into the negative {@code fi_errno} values the SPI speaks. */
final class UcsStatus {
  private UcsStatus() {}

  /**
   * The negative {@link FiErrno} for a UCX status; 0 for UCS_OK. Every link and endpoint failure,
   * UCS_ERR_ENDPOINT_TIMEOUT included, reads as {@code -FI_ECONNRESET}: the endpoint is dead for
   * good. (UCX 1.13.1 over tcp reports a peer that closed its worker as an endpoint timeout.)
   */
  static int toFiErrno(int ucsStatus) {
    if (ucsStatus == UCS_OK) {
      return 0;
    }
    if ((ucsStatus <= UCS_ERR_FIRST_LINK_FAILURE && ucsStatus >= UCS_ERR_LAST_LINK_FAILURE)
        || (ucsStatus <= UCS_ERR_FIRST_ENDPOINT_FAILURE
            && ucsStatus >= UCS_ERR_LAST_ENDPOINT_FAILURE)) {
      return -FiErrno.ECONNRESET;
    }
    return -switch (ucsStatus) {
      case UCS_INPROGRESS -> FiErrno.EINPROGRESS;
      case UCS_ERR_NO_MESSAGE -> FiErrno.ENOMSG;
      case UCS_ERR_NO_RESOURCE, UCS_ERR_BUSY -> FiErrno.EAGAIN;
      case UCS_ERR_NO_MEMORY -> FiErrno.ENOMEM;
      case UCS_ERR_INVALID_PARAM, UCS_ERR_INVALID_ADDR -> FiErrno.EINVAL;
      case UCS_ERR_UNREACHABLE -> FiErrno.EHOSTUNREACH;
      case UCS_ERR_NOT_IMPLEMENTED, UCS_ERR_UNSUPPORTED -> FiErrno.EOPNOTSUPP;
      case UCS_ERR_MESSAGE_TRUNCATED -> FiErrno.ETRUNC;
      case UCS_ERR_BUFFER_TOO_SMALL -> FiErrno.ETOOSMALL;
      case UCS_ERR_NO_DEVICE -> FiErrno.ENODEV;
      case UCS_ERR_CANCELED -> FiErrno.ECANCELED;
      case UCS_ERR_OUT_OF_RANGE -> FiErrno.EFAULT;
      case UCS_ERR_TIMED_OUT -> FiErrno.ETIMEDOUT;
      case UCS_ERR_EXCEEDS_LIMIT -> FiErrno.ENOSPC;
      case UCS_ERR_REJECTED -> FiErrno.ECONNREFUSED;
      case UCS_ERR_NOT_CONNECTED -> FiErrno.ENOTCONN;
      case UCS_ERR_CONNECTION_RESET -> FiErrno.ECONNRESET;
      case UCS_ERR_ALREADY_EXISTS -> FiErrno.EADDRINUSE;
      default ->
          FiErrno.EIO; // UCS_ERR_IO_ERROR, NO_PROGRESS, SHMEM_SEGMENT, SOME_CONNECTS_FAILED...
    };
  }

  /** Whether a ucs_status_ptr_t returned by an nbx call is an error code (UCS_PTR_IS_ERR). */
  static boolean isError(long statusPtr) {
    return Long.compareUnsigned(statusPtr, UCS_ERR_LAST) >= 0;
  }
}
