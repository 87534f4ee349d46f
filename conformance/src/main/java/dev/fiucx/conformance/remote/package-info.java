/**
 * Processes and hosts for tests that cross a process or a network: target processes (serves in test
 * mode), initiators, load processes and ticket files, and network namespaces joined by veth that a
 * test creates and removes itself.
 */
package dev.fiucx.conformance.remote;
