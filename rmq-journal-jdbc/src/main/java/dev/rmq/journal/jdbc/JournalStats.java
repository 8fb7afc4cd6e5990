package dev.rmq.journal.jdbc;

import java.time.Duration;

/**
 * What the journal's writer has done, for metrics and the endpoint.
 *
 * @param buffered rows waiting to be written
 * @param lag      how long the oldest of them has waited; zero when none wait
 * @param written  rows written since start
 * @param gap      rows dropped since start because the buffer was full ({@link WhenUnavailable#CONTINUE})
 * @param failures failed writes since start (each retried until it succeeds)
 * @param pruned   messages removed by retention since start: finished ones, and open ones whose time to live ran out
 * @param unmatched changes dropped because the journal held no message of their key (sent before it was on, or
 *                  whose row was dropped), after waiting for one
 * @param waiting  changes waiting for their message's row, which another process may not have written yet
 */
public record JournalStats(int buffered, Duration lag, long written, long gap, long failures, long pruned,
                           long unmatched, int waiting) {
}
