/**
 * A Spark job whose tasks take tickets from one remote counter: one fetch-and-add per record
 * through fiucx, each executor JVM connected once to a {@code fiucx serve}, and the driver's exact
 * check of the tickets. An application of the library, not part of it: Spark is provided by the
 * cluster.
 */
package dev.fiucx.examples.spark;
