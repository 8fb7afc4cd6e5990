/**
 * ZooKeeper coordination (Apache Curator): {@link dev.rmq.coordination.RmqCoordinator}, one per application,
 * registers the topics (refusing a conflicting definition) and gives every slot of a topic to one worker of
 * the whole cluster at any instant, fenced in Redis.
 */
@NullMarked
package dev.rmq.coordination;

import org.jspecify.annotations.NullMarked;
