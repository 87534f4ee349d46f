/**
 * The API: libfabric's {@code fi_atomic(3)} in Java. {@link dev.fiucx.Fabric} opens a {@link
 * dev.fiucx.Domain} of a provider (or serves and connects by host and port: {@link
 * dev.fiucx.Server}, {@link dev.fiucx.Connection}); endpoints post the base, fetch and compare
 * atomics in plain, vector, message and inject forms and return negative {@link dev.fiucx.FiErrno}
 * codes; completion queues and counters report them; {@link dev.fiucx.Domain#queryAtomic} says
 * which cells are valid and how each is carried out ({@link dev.fiucx.Mechanism}). Everything an
 * application names lives here; the other packages are the engine behind it.
 */
package dev.fiucx;
