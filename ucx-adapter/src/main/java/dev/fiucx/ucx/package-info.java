/**
 * The UCX transport of fiucx: {@link dev.fiucx.ucx.UcxTransport} implements {@link
 * dev.fiucx.spi.Transport} with jucx 1.14 for context, worker, endpoints, memory and rkeys, and FFM
 * downcalls ({@code UcpNative}) for what jucx lacks: {@code ucp_atomic_op_nbx}, request status and
 * free, endpoint flush and close, and the print and config calls behind {@code describe()}.
 *
 * <ul>
 *   <li>Posting ({@code AtomicPoster}): a preallocated {@code ucp_request_param_t} and operand
 *       word, the engine's token as {@code user_data}, and one FFM upcall stub per transport as the
 *       completion callback, which frees the request and reports the token. Nothing is allocated
 *       per operation. Fetching atomics on endpoints with peer-failure handling run in zeroed
 *       request memory of our own ({@code AtomicRequests}): UCX 1.13 leaves an atomic request's
 *       datatype state uninitialised and its purge of a failed endpoint deregisters whatever that
 *       state names. With all 4096 in flight a fetching post answers {@code -FI_EAGAIN}.
 *   <li>Layouts ({@code UcxLayout}): every struct offset written for UCX 1.13, and the version
 *       check at open that makes another libucp an unavailability cause instead of memory
 *       corruption.
 *   <li>Lifetimes: allocated regions and peers' mappings are reached through segments of arenas
 *       closed before UCX unmaps the memory, so a late use throws. {@code allocate} refuses sizes
 *       beyond {@code alloc_limit} (default: what the machine can back) before UCX is called.
 *   <li>Errors ({@code UcxErrors}): whatever the transport catches and drops is counted ({@code
 *       describe()}'s {@code ucx.errors}) and logged on {@code dev.fiucx.ucx}.
 *   <li>The direct path ({@code MappedAtomics}): a peer region that {@code ucp_rkey_ptr} maps into
 *       this process (UCX-allocated memory over sysv or posix) takes CPU atomics on the mapping
 *       instead of {@code ucp_atomic_op_nbx}, done when the call returns; only where every atomic
 *       on that memory is a CPU atomic (no device atomic mode or resources) and once the CPU ops
 *       proved right at open. {@code direct_path=off} turns it off.
 *   <li>Who executes UCX's atomics ({@code AtomicExecution}, from the worker's atomic lanes): a
 *       CPU, UCX in software on the target, or a device (NIC). A target with device atomics says so
 *       when it resolves a key; its regions are never mapped, and an initiator whose atomics are of
 *       the other kind refuses them ({@code FI_EOPNOTSUPP}).
 *   <li>Verbs ({@code VerbsSetup}, {@code VerbsPorts}): on a machine with InfiniBand or RoCE ports,
 *       the UCX settings fiucx makes for them (ud's destination-GID check where UCX would drop
 *       every packet, rc retries, keepalive), each with its reason in {@code describe()}.
 *   <li>Keys: a target publishes each region under a random 64-bit key; an initiator resolves it
 *       once over UCX active messages ({@code ControlMessage}, {@code ControlChannel}) and caches
 *       the unpacked rkey in a long-keyed copy-on-write map that posts read without allocating or
 *       locking ({@code PeerKeys}, one per peer). The target keeps an endpoint back to each
 *       initiator that resolved a key ({@code ServedInitiators}), claimed from UCX, never opened
 *       from an address in a message.
 *   <li>The control channel of a transport that may use shared memory runs on a UCX context and
 *       worker of its own over tcp ({@code ControlWorker}), with peer-failure handling, so that a
 *       target can force-close (and UCX free) what it holds for an initiator that left; the data
 *       worker keeps only the listed transports, and the control worker is progressed every 256th
 *       progress, while a control answer is awaited, and when its event fd wakes a waiter. The
 *       transport address carries both worker addresses ({@code UcxAddress}), each walked before
 *       UCX reads it ({@code UcxWorkerAddress}).
 *   <li>Revocation: closing a region tells every peer that resolved it; each marks its copy
 *       revoked, flushes its endpoint and acknowledges; the memory is unmapped after the last
 *       acknowledgement, or when the peer failed, released its peer or the timeout passed.
 *   <li>Threads: single-threaded workers by default (one thread posts and progresses); {@link
 *       dev.fiucx.ucx.UcxOptions#threadSafe()} asks for UCS_THREAD_MODE_MULTI and gives each
 *       posting thread its own scratch.
 * </ul>
 */
package dev.fiucx.ucx;
