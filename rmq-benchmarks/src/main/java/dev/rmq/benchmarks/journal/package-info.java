/**
 * The journal benchmark: what the JDBC journal costs sends and consumers (off, asynchronous, synchronous, side by
 * side in one run on one PostgreSQL), and how fast a restore puts messages back.
 */
@NullMarked
package dev.rmq.benchmarks.journal;

import org.jspecify.annotations.NullMarked;
