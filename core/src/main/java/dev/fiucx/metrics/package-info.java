/**
 * Micrometer metrics of a domain: {@link dev.fiucx.metrics.FiucxMetrics} binds what the endpoints
 * and the emulation already count to the application's registry. Micrometer is an optional
 * dependency of core: only this package names it, so an application that never binds metrics needs
 * no Micrometer jar.
 */
package dev.fiucx.metrics;
