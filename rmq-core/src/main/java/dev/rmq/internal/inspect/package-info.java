/** Reading a topic's sizes from Redis, for {@link dev.rmq.metrics.TopicInspector}. */
package dev.rmq.internal.inspect;
