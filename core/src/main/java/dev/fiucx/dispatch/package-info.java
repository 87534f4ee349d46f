/**
 * Where a checked call is split into elements and each is started by its cell's mechanism: the
 * {@link dev.fiucx.dispatch.Dispatcher} (with the count-1 fast path), the walks over local and
 * remote elements, the provider's table after the native self-test ({@link
 * dev.fiucx.dispatch.NativeAtomicsProof} proves each native op when a domain opens and demotes
 * wrong ones to emulation).
 */
package dev.fiucx.dispatch;
