/**
 * Testing an application's rmq listeners: {@link dev.rmq.test.EmbeddedRmq} brings a Redis (and a ZooKeeper) of the
 * test's own, and {@link dev.rmq.test.RmqTester} waits for what the listeners do.
 */
@NullMarked
package dev.rmq.test;

import org.jspecify.annotations.NullMarked;
