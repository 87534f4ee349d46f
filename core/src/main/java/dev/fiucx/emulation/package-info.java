/**
 * Where what the transport has no atomic for is emulated on top of its atomics: the
 * compare-and-swap loop ({@link dev.fiucx.emulation.CasLoop}, 1- to 8-byte elements in their
 * aligned word) and the remote ticket lock ({@link dev.fiucx.emulation.RemoteLock}, {@link
 * dev.fiucx.emulation.LockWords}) for 16- and 32-byte elements. Both are state machines over
 * preallocated arrays, driven by transport completions; nothing allocates.
 */
package dev.fiucx.emulation;
