/**
 * Replaying test vectors: through the reference engine (the semantics alone) or through a provider
 * (real calls on real memory), comparing memory images byte for byte.
 */
package dev.fiucx.conformance.replay;
