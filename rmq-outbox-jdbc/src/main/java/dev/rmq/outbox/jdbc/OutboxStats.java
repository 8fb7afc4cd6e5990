package dev.rmq.outbox.jdbc;

import java.time.Duration;

/**
 * What the outbox holds and what its relay did, as last counted (the relay counts the table every few seconds).
 *
 * @param rows      sends waiting in the table
 * @param refused   of those, the ones Redis refused at least once (they wait for another try)
 * @param oldestAge how long the oldest waiting send has waited; zero with none
 * @param relayed   sends moved to Redis since the relay started
 * @param refusals  refusals by Redis since the relay started
 */
public record OutboxStats(long rows, long refused, Duration oldestAge, long relayed, long refusals) {
}
