/** Reading a topic's sizes from Redis, for {@link dev.rmq.metrics.TopicInspector}. */
@NullMarked
package dev.rmq.internal.inspect;

import org.jspecify.annotations.NullMarked;
