package dev.rmq.outbox.jdbc;

import java.time.Instant;

/**
 * A send in the outbox that Redis refused, waiting for another try.
 *
 * @param id        its row
 * @param topic     its topic
 * @param key       its key
 * @param attempts  how often Redis refused it
 * @param lastError why, the last time
 * @param writtenAt when its transaction wrote it
 * @param retryAt   when the relay tries it again
 */
public record RefusedSend(long id, String topic, String key, int attempts, String lastError, Instant writtenAt,
                          Instant retryAt) {
}
