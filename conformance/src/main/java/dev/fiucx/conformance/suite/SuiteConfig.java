package dev.fiucx.conformance.suite;

/**
 * What a conformance run talks to.
 *
 * @param provider the provider name for {@code Fabric.openDomain}, e.g. {@code ucx}
 * @param transport the provider's transport ({@code shm}, {@code tcp}), or null for its default
 * @param targetInOtherProcess true to expose the target memory from a second JVM ({@code
 *     RemoteTarget}), false for a second domain in this process ({@code LocalTarget})
 */
public record SuiteConfig(String provider, String transport, boolean targetInOtherProcess) {}
