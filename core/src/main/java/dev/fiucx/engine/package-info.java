/**
 * The engine: the provider-independent {@link dev.fiucx.Domain} and {@link dev.fiucx.Endpoint}
 * ({@link dev.fiucx.engine.EngineDomain}, {@link dev.fiucx.engine.EngineEndpoint}) that every
 * provider opens over its transport. A call enters the endpoint's calls (the guard and the three
 * call forms), takes its one-element route or is checked ({@code validation}), is dispatched by its
 * cell's mechanism ({@code dispatch}, {@code emulation}) and completed ({@code completion}); the
 * endpoint's bindings, the progress thread and the checked domain address live here too.
 */
package dev.fiucx.engine;
