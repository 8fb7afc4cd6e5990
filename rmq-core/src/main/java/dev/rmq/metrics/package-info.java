/**
 * What rmq reports while it works: {@link dev.rmq.metrics.RmqMetrics} receives every send, consume,
 * acknowledgement and recovered lease; {@link dev.rmq.metrics.MicrometerRmqMetrics} turns them into
 * Micrometer meters; {@link dev.rmq.metrics.TopicInspector} reads backlog, in-flight and dead sizes.
 */
@NullMarked
package dev.rmq.metrics;

import org.jspecify.annotations.NullMarked;
