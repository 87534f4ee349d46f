package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.function.LongConsumer;
import org.openucx.jucx.NativeLibs;

/**
 * FFM downcalls into the libucp that jucx loaded, for what jucx lacks: atomics, puts and gets
 * without allocating, request handling, flush with our own callback, and the print/query calls
 * behind {@code describe()}.
 *
 * <p>Every pointer and handle travels as a {@code JAVA_LONG} (x86-64 LP64), so no call allocates a
 * {@link MemorySegment}. {@code ucs_status_t} is a packed enum, one signed byte in C calls, hence
 * {@code JAVA_BYTE} wherever it appears.
 */
final class UcpNative {
  /** The whole address space, to read and write native words by address without allocating. */
  @SuppressWarnings("restricted")
  static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

  private static final Linker LINKER = Linker.nativeLinker();
  private static final SymbolLookup UCP;
  private static final SymbolLookup UCS;

  static {
    // jucx loads libjucx.so, which pulls in the system's libucp.so.0; dlopen of the same soname
    // then returns that very library, so our handles and jucx's handles are interchangeable.
    NativeLibs.load();
    UCP = lookup("libucp.so.0");
    UCS = lookup("libucs.so.0");
  }

  // ucs_status_ptr_t ucp_atomic_op_nbx(ucp_ep_h, ucp_atomic_op_t, const void *buffer, size_t
  // count, uint64_t remote_addr, ucp_rkey_h, const ucp_request_param_t *)
  private static final FunctionDescriptor ATOMIC_OP_NBX_DESC =
      FunctionDescriptor.of(
          JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
  private static final MethodHandle ATOMIC_OP_NBX = ucp("ucp_atomic_op_nbx", ATOMIC_OP_NBX_DESC);

  /**
   * The same call without the Java-to-native thread-state transition. Only for single-threaded
   * workers: ucp_atomic_op_nbx never calls back into Java (with a callback set, an immediate
   * completion returns NULL instead of calling it), and without UCS_THREAD_MODE_MULTI it takes no
   * lock that a thread stopped at a safepoint inside one of our upcalls could be holding.
   */
  private static final MethodHandle ATOMIC_OP_NBX_CRITICAL =
      ucp("ucp_atomic_op_nbx", ATOMIC_OP_NBX_DESC, Linker.Option.critical(false));

  // ucs_status_ptr_t ucp_put_nbx(ucp_ep_h, const void *buffer, size_t count, uint64_t remote_addr,
  // ucp_rkey_h, const ucp_request_param_t *); ucp_get_nbx takes the same arguments
  private static final FunctionDescriptor RMA_NBX_DESC =
      FunctionDescriptor.of(
          JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
  private static final MethodHandle PUT_NBX = ucp("ucp_put_nbx", RMA_NBX_DESC);
  private static final MethodHandle GET_NBX = ucp("ucp_get_nbx", RMA_NBX_DESC);

  // ucs_status_t ucp_rkey_ptr(ucp_rkey_h rkey, uint64_t raddr, void **addr_p)
  private static final MethodHandle RKEY_PTR =
      ucp("ucp_rkey_ptr", FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG, JAVA_LONG, JAVA_LONG));

  // ucs_status_ptr_t ucp_ep_flush_nbx(ucp_ep_h, const ucp_request_param_t *)
  private static final MethodHandle EP_FLUSH_NBX =
      ucp("ucp_ep_flush_nbx", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));

  // ucs_status_ptr_t ucp_ep_close_nbx(ucp_ep_h, const ucp_request_param_t *)
  private static final MethodHandle EP_CLOSE_NBX =
      ucp("ucp_ep_close_nbx", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));

  // void ucp_request_free(void *request)
  // ucs_status_t ucp_context_query(ucp_context_h context, ucp_context_attr_t *attr)
  private static final MethodHandle CONTEXT_QUERY =
      ucp("ucp_context_query", FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG, JAVA_LONG));

  private static final MethodHandle REQUEST_FREE =
      ucp("ucp_request_free", FunctionDescriptor.ofVoid(JAVA_LONG));

  // ucs_status_t ucp_request_check_status(void *request)
  private static final MethodHandle REQUEST_CHECK_STATUS =
      ucp("ucp_request_check_status", FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG));

  // ucs_status_t ucp_worker_arm(ucp_worker_h)
  private static final MethodHandle WORKER_ARM =
      ucp("ucp_worker_arm", FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG));

  // ucs_status_t ucp_worker_signal(ucp_worker_h): thread-safe
  private static final MethodHandle WORKER_SIGNAL =
      ucp("ucp_worker_signal", FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG));

  // int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask)
  private static final MethodHandle PPOLL =
      downcall(
          LINKER.defaultLookup(),
          "ppoll",
          FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

  // void ucp_get_version(unsigned *major, unsigned *minor, unsigned *release)
  private static final MethodHandle GET_VERSION =
      ucp("ucp_get_version", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_LONG));

  // const char *ucp_get_version_string(void)
  private static final MethodHandle GET_VERSION_STRING =
      ucp("ucp_get_version_string", FunctionDescriptor.of(JAVA_LONG));

  // const char *ucs_status_string(ucs_status_t) (libucs)
  private static final MethodHandle STATUS_STRING =
      downcall(UCS, "ucs_status_string", FunctionDescriptor.of(JAVA_LONG, JAVA_BYTE));

  // void ucp_ep_print_info(ucp_ep_h, FILE *)
  private static final MethodHandle EP_PRINT_INFO =
      ucp("ucp_ep_print_info", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG));

  // void ucp_worker_print_info(ucp_worker_h, FILE *)
  private static final MethodHandle WORKER_PRINT_INFO =
      ucp("ucp_worker_print_info", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG));

  // ucs_status_t ucp_config_read(const char *env_prefix, const char *filename, ucp_config_t **)
  private static final MethodHandle CONFIG_READ =
      ucp("ucp_config_read", FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG, JAVA_LONG, JAVA_LONG));

  // ucs_status_t ucp_config_modify(ucp_config_t *, const char *name, const char *value)
  private static final MethodHandle CONFIG_MODIFY =
      ucp("ucp_config_modify", FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG, JAVA_LONG, JAVA_LONG));

  // void ucp_config_print(const ucp_config_t *, FILE *, const char *title,
  // ucs_config_print_flags_t)
  private static final MethodHandle CONFIG_PRINT =
      ucp("ucp_config_print", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));

  // void ucp_config_release(ucp_config_t *)
  private static final MethodHandle CONFIG_RELEASE =
      ucp("ucp_config_release", FunctionDescriptor.ofVoid(JAVA_LONG));

  // libc: FILE *open_memstream(char **ptr, size_t *size); int fclose(FILE *); void free(void *)
  private static final MethodHandle OPEN_MEMSTREAM =
      downcall(
          LINKER.defaultLookup(),
          "open_memstream",
          FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
  private static final MethodHandle FCLOSE =
      downcall(LINKER.defaultLookup(), "fclose", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
  private static final MethodHandle FREE =
      downcall(LINKER.defaultLookup(), "free", FunctionDescriptor.ofVoid(JAVA_LONG));

  private UcpNative() {}

  /** Forces the class (and so libucp) to load; throws when it cannot. */
  static void ensureLoaded() {
    // the static initializer did the work
  }

  static long atomicOpNbx(
      boolean critical,
      long ep,
      int opcode,
      long buffer,
      long remoteAddress,
      long rkey,
      long param) {
    try {
      return critical
          ? (long)
              ATOMIC_OP_NBX_CRITICAL.invokeExact(ep, opcode, buffer, 1L, remoteAddress, rkey, param)
          : (long) ATOMIC_OP_NBX.invokeExact(ep, opcode, buffer, 1L, remoteAddress, rkey, param);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long putNbx(long ep, long buffer, long length, long remoteAddress, long rkey, long param) {
    try {
      return (long) PUT_NBX.invokeExact(ep, buffer, length, remoteAddress, rkey, param);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long getNbx(long ep, long buffer, long length, long remoteAddress, long rkey, long param) {
    try {
      return (long) GET_NBX.invokeExact(ep, buffer, length, remoteAddress, rkey, param);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * {@code ucp_rkey_ptr}: where the peer's byte at {@code remoteAddress} is mapped in this process,
   * or 0 when UCX cannot map it (the rkey has no shared-memory component that this process can
   * attach, e.g. registered memory or a tcp-only peer).
   */
  static long rkeyPtr(long rkey, long remoteAddress) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_LONG);
      byte status = (byte) RKEY_PTR.invokeExact(rkey, remoteAddress, out.address());
      return status == UcxConstants.UCS_OK ? out.get(JAVA_LONG, 0) : 0;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long epFlushNbx(long ep, long param) {
    try {
      return (long) EP_FLUSH_NBX.invokeExact(ep, param);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long epCloseNbx(long ep, long param) {
    try {
      return (long) EP_CLOSE_NBX.invokeExact(ep, param);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * {@code ucp_context_query} for the request size: the bytes UCX needs before a request the user
   * allocates ({@code UCP_OP_ATTR_FIELD_REQUEST}).
   */
  static long contextRequestSize(long context) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment attr = arena.allocate(UcxLayout.CONTEXT_ATTR_ALLOCATED, 8);
      attr.set(JAVA_LONG, UcxLayout.CONTEXT_ATTR_FIELD_MASK, UcxLayout.UCP_ATTR_FIELD_REQUEST_SIZE);
      byte status = (byte) CONTEXT_QUERY.invokeExact(context, attr.address());
      if (status != 0) {
        throw new IllegalStateException("ucp_context_query: " + statusString(status));
      }
      return attr.get(JAVA_LONG, UcxLayout.CONTEXT_ATTR_REQUEST_SIZE);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void requestFree(long request) {
    try {
      REQUEST_FREE.invokeExact(request);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int requestCheckStatus(long request) {
    try {
      return (byte) REQUEST_CHECK_STATUS.invokeExact(request);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** {@code ucp_worker_arm}: UCS_OK, or UCS_ERR_BUSY when events are waiting to be progressed. */
  static int workerArm(long worker) {
    try {
      return (byte) WORKER_ARM.invokeExact(worker);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int workerSignal(long worker) {
    try {
      return (byte) WORKER_SIGNAL.invokeExact(worker);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * {@code ppoll} of one {@code struct pollfd} at {@code pollfd} with the {@code struct timespec}
   * at {@code timespec}; returns ppoll's result (-1 on EINTR and other errors).
   */
  static int ppoll(long pollfds, int count, long timespec) {
    try {
      return (int) PPOLL.invokeExact(pollfds, (long) count, timespec, 0L);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** {@code {major, minor, release}} of the libucp in use. */
  static int[] version() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment v = arena.allocate(JAVA_INT, 3);
      GET_VERSION.invokeExact(v.address(), v.address() + 4, v.address() + 8);
      return new int[] {
        v.getAtIndex(JAVA_INT, 0), v.getAtIndex(JAVA_INT, 1), v.getAtIndex(JAVA_INT, 2)
      };
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Runs {@code open} (a {@code UcpContext} creation) without the one warning every context
   * creation prints when jucx's API is newer than the libucp loaded here ({@link
   * UcxLayout#JUCX_API_MINOR}): UCX's log level is raised from WARN to ERROR for the call and set
   * back. Only then: a user who set {@code UCX_LOG_LEVEL} to anything else sees everything, and on
   * a libucp as new as jucx nothing is changed. {@code info} and docs/provider.md explain it
   * instead.
   */
  static <T> T withoutApiVersionWarning(java.util.function.Supplier<T> open) {
    if (version()[1] >= UcxLayout.JUCX_API_MINOR) {
      return open.get();
    }
    MemorySegment level = logLevelWord();
    synchronized (UcpNative.class) { // two domains opening at once: set back exactly once each
      if (level.get(JAVA_INT, UcxLayout.GLOBAL_OPTS_LOG_LEVEL) != UcxLayout.LOG_LEVEL_WARN) {
        return open.get();
      }
      level.set(JAVA_INT, UcxLayout.GLOBAL_OPTS_LOG_LEVEL, UcxLayout.LOG_LEVEL_ERROR);
      try {
        return open.get();
      } finally {
        level.set(JAVA_INT, UcxLayout.GLOBAL_OPTS_LOG_LEVEL, UcxLayout.LOG_LEVEL_WARN);
      }
    }
  }

  /**
   * Runs {@code call} with UCX's ERROR lines held back (the level lowered to FATAL and set back),
   * for a call whose failure is an answer, not a fault: {@link UcxTransport#matchEndpoint} when no
   * endpoint waits. Only when the level is UCX's default or ERROR: a user who asked for more sees
   * everything.
   */
  static <T> T withoutErrorLines(java.util.function.Supplier<T> call) {
    MemorySegment level = logLevelWord();
    synchronized (UcpNative.class) {
      int was = level.get(JAVA_INT, UcxLayout.GLOBAL_OPTS_LOG_LEVEL);
      if (was != UcxLayout.LOG_LEVEL_WARN && was != UcxLayout.LOG_LEVEL_ERROR) {
        return call.get();
      }
      level.set(JAVA_INT, UcxLayout.GLOBAL_OPTS_LOG_LEVEL, UcxLayout.LOG_LEVEL_FATAL);
      try {
        return call.get();
      } finally {
        level.set(JAVA_INT, UcxLayout.GLOBAL_OPTS_LOG_LEVEL, was);
      }
    }
  }

  /** UCX's default log level ({@code ucs_log_level_t}: 1 error, 2 warn, ...); for tests. */
  static int logLevel() {
    return logLevelWord().get(JAVA_INT, UcxLayout.GLOBAL_OPTS_LOG_LEVEL);
  }

  @SuppressWarnings("restricted") // a 4-byte view of an exported global of libucs
  private static MemorySegment logLevelWord() {
    return UCS.find("ucs_global_opts")
        .orElseThrow(() -> new IllegalStateException("libucs has no ucs_global_opts"))
        .reinterpret(UcxLayout.GLOBAL_OPTS_LOG_LEVEL + 4);
  }

  /** What {@code describe()} and {@code info} say about jucx's API against the libucp loaded. */
  static String apiNote() {
    int[] v = version();
    if (v[1] >= UcxLayout.JUCX_API_MINOR) {
      return "jucx 1." + UcxLayout.JUCX_API_MINOR + " API, libucp " + v[0] + "." + v[1];
    }
    return "jucx 1."
        + UcxLayout.JUCX_API_MINOR
        + " asks for UCP API 1."
        + UcxLayout.JUCX_API_MINOR
        + ", libucp is "
        + v[0]
        + "."
        + v[1]
        + "."
        + v[2]
        + ": UCX's warning 'UCP API version is incompatible' is silenced when a context opens"
        + " (UCX_LOG_LEVEL other than warn shows it); benign: fiucx calls only "
        + v[0]
        + "."
        + v[1]
        + "'s functions and checks every struct layout it uses (ucx.layouts)";
  }

  static String versionString() {
    try {
      return ALL.getString((long) GET_VERSION_STRING.invokeExact());
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** UCX's own text for a status, e.g. "Connection reset by remote peer". */
  static String statusString(int ucsStatus) {
    try {
      return ALL.getString((long) STATUS_STRING.invokeExact((byte) ucsStatus));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** What {@code ucp_ep_print_info} prints: the endpoint's lanes and their transports. */
  static String endpointInfo(long ep) {
    return printToString(
        file -> {
          try {
            EP_PRINT_INFO.invokeExact(ep, file);
          } catch (Throwable t) {
            throw rethrow(t);
          }
        });
  }

  /** What {@code ucp_worker_print_info} prints: address size and the atomic resources. */
  static String workerInfo(long worker) {
    return printToString(
        file -> {
          try {
            WORKER_PRINT_INFO.invokeExact(worker, file);
          } catch (Throwable t) {
            throw rethrow(t);
          }
        });
  }

  /**
   * The effective value of one UCX setting ({@code name} without the {@code UCX_} prefix) as UCX
   * parses it from the environment and config files, after {@code overrides} (the modifications a
   * transport makes to its own context) have been applied; null when UCX does not print it.
   */
  static String configValue(String name, java.util.Map<String, String> overrides) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment configPtr = arena.allocate(JAVA_LONG);
      int status = (byte) CONFIG_READ.invokeExact(0L, 0L, configPtr.address());
      if (status != UcxConstants.UCS_OK) {
        return null;
      }
      long config = configPtr.get(JAVA_LONG, 0);
      try {
        for (var e : overrides.entrySet()) {
          int s =
              (byte)
                  CONFIG_MODIFY.invokeExact(
                      config,
                      arena.allocateFrom(e.getKey()).address(),
                      arena.allocateFrom(e.getValue()).address());
          if (s != UcxConstants.UCS_OK) {
            return null;
          }
        }
        String text =
            printToString(
                file -> {
                  try {
                    CONFIG_PRINT.invokeExact(
                        config, file, 0L, UcxConstants.UCS_CONFIG_PRINT_CONFIG);
                  } catch (Throwable t) {
                    throw rethrow(t);
                  }
                });
        String prefix = "UCX_" + name + "=";
        return text.lines()
            .filter(l -> l.startsWith(prefix))
            .map(l -> l.substring(prefix.length()))
            .findFirst()
            .orElse(null);
      } finally {
        CONFIG_RELEASE.invokeExact(config);
      }
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Runs a UCX print routine against a memory stream and returns what it wrote. */
  private static String printToString(LongConsumer printer) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment bufPtr = arena.allocate(JAVA_LONG);
      MemorySegment sizePtr = arena.allocate(JAVA_LONG);
      long file = (long) OPEN_MEMSTREAM.invokeExact(bufPtr.address(), sizePtr.address());
      if (file == 0) {
        throw new IllegalStateException("open_memstream failed");
      }
      try {
        printer.accept(file);
      } finally {
        int closed = (int) FCLOSE.invokeExact(file); // flushes buffer and size
        assert closed == 0;
      }
      long buf = bufPtr.get(JAVA_LONG, 0);
      long size = sizePtr.get(JAVA_LONG, 0);
      try {
        return new String(ALL.asSlice(buf, size).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
      } finally {
        FREE.invokeExact(buf);
      }
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static MethodHandle ucp(
      String name, FunctionDescriptor descriptor, Linker.Option... options) {
    return downcall(UCP, name, descriptor, options);
  }

  @SuppressWarnings("restricted")
  private static MethodHandle downcall(
      SymbolLookup lookup, String name, FunctionDescriptor descriptor, Linker.Option... options) {
    MemorySegment symbol =
        lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError("no symbol " + name));
    return LINKER.downcallHandle(symbol, descriptor, options);
  }

  @SuppressWarnings("restricted")
  private static SymbolLookup lookup(String library) {
    return SymbolLookup.libraryLookup(library, Arena.global());
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t);
  }
}
