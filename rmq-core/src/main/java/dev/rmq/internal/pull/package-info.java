/**
 * The pull consumer behind {@link dev.rmq.pull.RmqPuller}: a {@link dev.rmq.internal.pull.Puller} over one
 * {@link dev.rmq.internal.pull.PullSource} per topic, each a slot owner of its topic's assignment and a driver of the
 * slot sessions it holds, which keep the deliveries handed out until the program ends them.
 */
@NullMarked
package dev.rmq.internal.pull;

import org.jspecify.annotations.NullMarked;
