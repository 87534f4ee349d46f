/**
 * What a provider implements: an {@link dev.fiucx.spi.AtomicProvider} found by {@code
 * ServiceLoader} opens a {@link dev.fiucx.spi.Transport} (worker address, exposed regions,
 * progress) whose {@link dev.fiucx.spi.TransportPeer}s post single native atomics, gets and puts
 * and report completions by token. The engine builds every libfabric call, check and emulation on
 * top, the same for every provider; ucx is the one in this repository. A provider opens its domains
 * with {@link dev.fiucx.spi.Engine#openDomain} and recognises the engine's lock-word region by
 * {@link dev.fiucx.spi.LockWordRegion}: this package is all it needs of core beyond the API.
 */
package dev.fiucx.spi;
