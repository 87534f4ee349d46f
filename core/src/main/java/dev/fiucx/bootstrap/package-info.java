/**
 * fiucx's bootstrap: the small TCP protocol through which an initiator that knows only {@code
 * host:port} gets a target's domain address and named regions ({@link dev.fiucx.Fabric#serve},
 * {@link dev.fiucx.Fabric#connect}). Versioned, length-prefixed frames ({@link
 * dev.fiucx.bootstrap.Frames}) with a limit on every field, no Java serialization; a server that
 * refuses what it cannot read with an ERROR frame naming the {@link dev.fiucx.bootstrap.Refusal}.
 * Not API: its classes are public for {@code dev.fiucx} and for bench, whose run control rides the
 * same frames.
 */
package dev.fiucx.bootstrap;
