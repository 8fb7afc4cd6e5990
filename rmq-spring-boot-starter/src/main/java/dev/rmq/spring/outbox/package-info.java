/**
 * The transactional outbox on Spring Boot: {@code rmq.outbox.*} and the application's {@code DataSource} give an
 * {@link dev.rmq.spring.outbox.RmqOutbox} that writes sends in the current transaction, and a relay that moves them
 * to Redis, on one instance at a time under ZooKeeper.
 */
@NullMarked
package dev.rmq.spring.outbox;

import org.jspecify.annotations.NullMarked;
