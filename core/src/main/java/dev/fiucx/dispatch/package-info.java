/**
 * Where a checked call is split into elements and each is started by its cell's mechanism: the
 * {@link dev.fiucx.dispatch.Dispatcher} (all elements of a call, or the one element of a count-1
 * call, and the routine for a one-element native call on a mapped region), the walks over local and
 * remote elements that the checks read, the provider's table after the native self-test ({@link
 * dev.fiucx.dispatch.NativeAtomicsProof} proves each native op when a domain opens and demotes
 * wrong ones to emulation).
 */
package dev.fiucx.dispatch;
