/**
 * Where a call is checked before anything is posted. {@link dev.fiucx.validation.CallChecks} is the
 * one sequence every call's checks take, in the order that decides which errno a call with several
 * defects gets; it applies the rules kept here: the flags, the cell, the count and every local
 * buffer ({@link dev.fiucx.validation.LocalChecks}), and every remote range's key, access, bounds
 * and alignment ({@link dev.fiucx.validation.RemoteChecks}). {@link dev.fiucx.validation.CallGuard}
 * says who may be inside a call at all. UCX checks nothing, so everything is checked here, and a
 * refused call changes nothing. The one-element route of the engine re-checks what can change
 * between calls with the same rules and leaves every refusal to the sequence. The shape of a vector
 * or message call's iov arrays (present, entries not null, at most {@code iov_limit}) is refused as
 * the dispatcher's element walks read them, before the sequence.
 */
package dev.fiucx.validation;
