/**
 * Micrometer metrics of rmq, in their own auto-configuration that applies only when the application has
 * a {@code MeterRegistry}: timers, counters and the lateness distribution from rmq-core's
 * {@code MicrometerRmqMetrics}, and gauges of backlog, in-flight and dead sizes and of owned slots. Tags
 * are {@code topic}, {@code type} and {@code result} only; never a message key.
 */
@NullMarked
package dev.rmq.spring.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
