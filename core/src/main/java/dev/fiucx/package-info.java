/**
 * The API: libfabric's {@code fi_atomic(3)} in Java. {@link dev.fiucx.Fabric} opens a {@link
 * dev.fiucx.Domain} of a provider (or serves and connects by host and port: {@link
 * dev.fiucx.Server}, {@link dev.fiucx.Connection}); endpoints post the base, fetch and compare
 * atomics in plain, vector, message and inject forms and return negative {@link dev.fiucx.FiErrno}
 * codes; completion queues and counters report them; {@link dev.fiucx.Domain#queryAtomic} says
 * which cells are valid and how each is carried out ({@link dev.fiucx.Mechanism}). Everything an
 * application names lives here; the other packages are the engine behind it.
 *
 * <h2>Threads</h2>
 *
 * <p>Which threads may call an endpoint, completion queue or counter at once is the domain's
 * threading model, {@link dev.fiucx.DomainAttr.Threading}, chosen when the domain opens: {@code
 * ENDPOINT} (the default: one thread at a time per endpoint, another gets {@code -FI_EBUSY}),
 * {@code SAFE} (every call of the domain serialized by one lock) or {@code DOMAIN} (the application
 * serializes; nothing is checked). Under manual progress ({@link dev.fiucx.DomainAttr.Progress})
 * with {@code ENDPOINT}, the whole domain's endpoints, queue reads and counter progress share one
 * guard. {@link dev.fiucx.Endpoint}, {@link dev.fiucx.CompletionQueue} and {@link
 * dev.fiucx.Counter} say what each does; {@link dev.fiucx.AtomicRegion} is one thread's at a time
 * whatever the model; {@link dev.fiucx.Fabric} holds no state, and {@link dev.fiucx.Connection}
 * hands each thread an endpoint of its own.
 *
 * <h2>Errors</h2>
 *
 * <p>Hot-path calls (the atomics, completion queue reads, {@code Counter.waitFor}) return 0, a
 * count or a negative {@link dev.fiucx.FiErrno} value and do not throw; set-up calls (opening,
 * binding, registering, connecting, serving) throw {@link dev.fiucx.FiException}, whose {@link
 * dev.fiucx.FiException#errno} is the positive value.
 */
package dev.fiucx;
