/**
 * The test vectors of {@code docs/conformance.md}: reading them ({@link
 * dev.fiucx.conformance.vectors.VectorReader}), checked against every length and count before a
 * byte is trusted.
 */
package dev.fiucx.conformance.vectors;
