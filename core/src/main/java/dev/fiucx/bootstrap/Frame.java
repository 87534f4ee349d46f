package dev.fiucx.bootstrap;

/**
 * One bootstrap message: its type and payload (see {@link Frames}).
 *
 * @param type 1 .. 255 the bootstrap's own ({@link Frames#HELLO} ...), from {@link
 *     Frames#FIRST_APPLICATION_TYPE} on a protocol built on it (bench's run control)
 */
public record Frame(int type, byte[] payload) {}
