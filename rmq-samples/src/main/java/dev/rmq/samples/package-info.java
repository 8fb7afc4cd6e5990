/**
 * The rmq sample application: {@link dev.rmq.samples.RmqSamplesApplication} and its embedded default
 * ({@link dev.rmq.samples.EmbeddedInfrastructure}), which brings a local Redis and an in-process ZooKeeper
 * when none is configured. One subpackage per use case, each a topic type: {@code pricechange}
 * (RANGE_MERGE), {@code merchanttasks} (PRIORITY) and {@code ordertimeout} (FIXED_TIME).
 */
@NullMarked
package dev.rmq.samples;

import org.jspecify.annotations.NullMarked;
