/**
 * The conformance suite any provider can run: {@link
 * dev.fiucx.conformance.suite.AtomicConformanceSuite} (subclass it with a {@link
 * dev.fiucx.conformance.suite.SuiteConfig}) checks every cell in every call form against the
 * reference semantics, plus flags and completions; {@link
 * dev.fiucx.conformance.suite.RequiresProvider} skips a provider's tests with its reason where it
 * cannot run. JUnit is a dependency of this package on purpose: provider authors extend it.
 */
package dev.fiucx.conformance.suite;
