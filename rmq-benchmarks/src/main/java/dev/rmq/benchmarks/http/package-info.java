/**
 * The HTTP benchmark: rmq-server's send and pull rates with batches of 100, beside the same work through the Java
 * client on the same Redis in the same run.
 */
@NullMarked
package dev.rmq.benchmarks.http;

import org.jspecify.annotations.NullMarked;
