package dev.rmq.journal.jdbc;

import java.time.Duration;

/**
 * What a restore did.
 *
 * @param examined unfinished messages read from the journal
 * @param restored put back into Redis
 * @param present  left alone because Redis still holds their key
 * @param expired  left out because their time to live ran out (now marked expired in the journal)
 * @param skipped  left out because their topic is not one of the client's, or their slot lies outside it
 * @param took     how long it ran
 */
public record RestoreReport(long examined, long restored, long present, long expired, long skipped, Duration took) {
}
