package dev.fiucx.conformance.suite;

import java.util.Map;

/**
 * What a conformance run talks to.
 *
 * @param provider the provider name for {@code Fabric.openDomain}, e.g. {@code ucx}
 * @param transport the provider's transport ({@code shm}, {@code tcp}), or null for its default
 * @param targetInOtherProcess true to expose the target memory from a second JVM ({@code
 *     RemoteTarget}), false for a second domain in this process ({@code LocalTarget})
 * @param options provider options of the initiator's domain ({@code DomainAttr.options}), e.g.
 *     {@code direct_path=off} for ucx
 */
public record SuiteConfig(
    String provider, String transport, boolean targetInOtherProcess, Map<String, String> options) {
  /** Copies the options (none when null). */
  public SuiteConfig {
    options = options == null ? Map.of() : Map.copyOf(options);
  }

  /**
   * No provider options.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param targetInOtherProcess whether the target domain lives in a second process
   */
  public SuiteConfig(String provider, String transport, boolean targetInOtherProcess) {
    this(provider, transport, targetInOtherProcess, Map.of());
  }
}
