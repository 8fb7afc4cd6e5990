/**
 * {@code @ServiceConnection} for rmq: Testcontainers' Redis and ZooKeeper containers become rmq's connection
 * details. Active only when {@code spring-boot-testcontainers} is on the test class path.
 */
@NullMarked
package dev.rmq.test.testcontainers;

import org.jspecify.annotations.NullMarked;
