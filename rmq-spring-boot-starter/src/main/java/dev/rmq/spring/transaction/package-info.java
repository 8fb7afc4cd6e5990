/**
 * Sends that follow the database transaction: the producer's sends inside a Spring transaction wait for its commit.
 */
@NullMarked
package dev.rmq.spring.transaction;

import org.jspecify.annotations.NullMarked;
